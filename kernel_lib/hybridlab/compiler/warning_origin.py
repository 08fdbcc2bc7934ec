"""NumPy's floating-point warnings raised inside an op, shown at the user's line and naming the node.

``np.log`` of a negative inside an op makes NumPy warn "invalid value encountered in log" at the
innermost Python line running, which is hybridlab's (``ops/elemwise.py``, a generated program or a
fused kernel), never the user's. Loading the compiler wraps ``warnings.showwarning`` once
(``install``); the wrapper runs only when a warning is about to be shown, so a call that warns
nothing pays nothing (no ``np.errstate`` or ``catch_warnings`` around calls). For a RuntimeWarning
of NumPy's floating-point checks whose line is hybridlab's, it looks at the live stack:

* a frame running a generated program (``codegen.program_named``) names the node whose statement
  is running (``Program.node_at``), or an ``Interpreter`` step names its node: the warning moves
  to the user line that created the node (``node.meta["source"]``) and its text names the node and
  its op, e.g. ``invalid value encountered in log (node 'net0_log0' (log), created at net.py:12:
  return mx.np.log(x))``; inside a fused node the step is named by the ufunc in NumPy's text,
  a backward node names the forward node whose gradient it computes;
* otherwise (an imperative op call) the warning moves to the innermost frame outside hybridlab
  and names the op.

The warning is then issued again there (``warnings.warn_explicit``), so the filters and the "once
per location" registry apply to the user's line, as for NumPy called from user code: the default
filter shows it once per user line and node, and ``filterwarnings(..., module=<user module>)``
matches. The entry the first issue left in hybridlab's registry is dropped, so the same warning
from another user line is shown too (each such warning costs a walk of the stack; finite calls
cost nothing). A filter that turns every such warning into an error raises at hybridlab's line
as before (the traceback goes through the user's line); one for the user's module only raises
from the re-issue, out of the op call. A file no loaded module has (a notebook cell) gets a
registry of its own, and filters see its file name as its module name.

``warnings.catch_warnings(record=True)`` and ``pytest.warns`` put the default ``showwarning`` back
while they record, so what they record is NumPy's warning as NumPy issued it: the same message and
category, at hybridlab's file and line. ``reattributing(show)`` gives the wrapper around any
``showwarning``-like ``show`` (the tests record through it).

Example::

    >>> import warnings
    >>> import hybridlab as mx
    >>> seen = []
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("always")
    ...     warnings.showwarning = reattributing(lambda m, c, f, n, file=None, line=None: seen.append((str(m), f)))
    ...     y = mx.nd.log(mx.nd.array([-1.0]))
    >>> seen        # doctest: +ELLIPSIS
    [("invalid value encountered in log (op 'log', imperative call at <doctest ...>:4: ...)", '<doctest ...>')]
"""
import linecache
import os
import re
import sys
import threading
import warnings

from ..ndarray.dispatch import invoke
from ..symbol.provenance import in_package
from .codegen import program_named
from .interpreter import Interpreter
from .passes.fusion import fused_members

__all__ = ["install", "reattributing", "Origin", "origin"]

# the text NumPy's floating-point error handling writes (numpy/_core/src/umath/extobj.c)
_FLOATING_POINT = re.compile(r"(?:divide by zero|overflow|underflow|invalid value) encountered in (?:scalar )?(\w+)")
_GENERATED = "<hybridlab"          # generated programs, fused kernels, cached op entries
_INVOKE, _STEP = invoke.__code__, Interpreter.step.__code__
_local = threading.local()         # busy: a warning is being issued again (showwarning passes it on)
_module_of = {}                    # user file name -> its loaded module's globals, or None
_registries = {}                   # user file name no loaded module has (a notebook cell) -> its registry


class Origin:
    """Where a warning raised inside an op belongs: the user's ``filename``/``lineno``, the
    ``text`` naming the node and op, the ``module``, ``module_globals`` and ``registry`` the
    filters see there, and ``raised_registry``: the registry of hybridlab's line that raised it."""

    __slots__ = ("filename", "lineno", "text", "module", "module_globals", "registry", "raised_registry")

    def __init__(self, filename, lineno, text, module_globals, raised_registry):
        self.filename, self.lineno, self.text = filename, lineno, text
        self.module_globals, self.raised_registry = module_globals, raised_registry
        if module_globals is not None:
            self.module = module_globals.get("__name__")
            self.registry = module_globals.setdefault("__warningregistry__", {})
        else:
            self.module = None
            if filename not in _registries and len(_registries) > 1024:
                _registries.clear()
            self.registry = _registries.setdefault(filename, {})


def origin(message, filename, lineno):
    """The ``Origin`` of the warning ``message`` being shown for ``filename``:``lineno``, looked up on
    the live stack of the caller, or ``None`` when it is not NumPy's floating-point warning from
    hybridlab's code inside an op (then it is shown as it is)."""
    found = _FLOATING_POINT.match(str(message))
    if found is None or not _hybridlab_code(filename):
        return None
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_filename == filename and frame.f_lineno == lineno):
        frame = frame.f_back
    if frame is None:                      # not raised on this stack (a warning shown again later)
        return None
    raised = frame.f_globals.get("__warningregistry__")
    op = node = fused = None
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if node is None and name.startswith(_GENERATED):
            prog = program_named(name)
            node = prog.node_at(frame.f_lineno) if prog is not None else None
            members = fused_members(node) if node is not None else None
            if members is not None:            # a fusion pass node: name the member that warned
                fused, node = node, _fused_step(members[1], found.group(1)) or node
        elif node is None and code is _STEP:
            node = frame.f_locals.get("node")
        elif op is None and code is _INVOKE:
            op = frame.f_locals.get("op")
        elif not _hybridlab_code(name):
            break                          # the user's frame
        src = node.meta.get("source") if node is not None else None
        if src:
            where = f"{os.path.basename(str(src['file']))}:{src['line']}: {src['code']}"
            return Origin(src["file"], src["line"], f"{message} ({_node_words(node, fused)}, created at {where})",
                          _module_globals(src["file"]), raised)
        frame = frame.f_back
    if frame is None or (node is None and op is None):
        return None
    filename, line = frame.f_code.co_filename, frame.f_lineno
    where = f"{os.path.basename(filename)}:{line}"
    if node is not None:                   # a node without a source line (a graph from a file)
        text = f"{message} ({_node_words(node, fused)}, run from {where})"
    else:
        text = f"{message} (op '{op.name}', imperative call at {where}: " \
               f"{linecache.getline(filename, line).strip()})"
    return Origin(filename, line, text, frame.f_globals, raised)


def _hybridlab_code(filename):
    return filename.startswith(_GENERATED) or in_package(filename)


def _fused_step(steps, ufunc):
    """The member (of ``fused_members``) whose op is the ufunc NumPy's text names, or ``None``."""
    return next((m for m in steps if ufunc in (m.op.name, getattr(m.op.lowering, "ufunc", None))), None)


def _node_words(node, fused):
    words = f"node '{node.name}' ({node.op.name})"
    if fused is not None and fused is not node:
        words += f", fused into '{fused.name}'"
    if node.meta.get("backward_of"):
        words += f", in the gradient of '{node.meta['backward_of']}'"
    return words


def _module_globals(filename):
    """The globals of the loaded module whose file is ``filename`` (``None`` when none is)."""
    if filename not in _module_of:
        if len(_module_of) > 1024:         # bounded: user files come and go in a long session
            _module_of.clear()
        _module_of[filename] = next((vars(m) for m in list(sys.modules.values())
                                     if getattr(m, "__file__", None) == filename), None)
    return _module_of[filename]


def reattributing(show):
    """A ``warnings.showwarning`` that shows NumPy's floating-point warnings raised inside an op at
    the user's line, naming the node (see the module docstring), and passes everything else, and
    every warning while one is issued again, to ``show`` unchanged."""
    def show_reattributed(message, category, filename, lineno, file=None, line=None):
        if getattr(_local, "busy", False) or not issubclass(category, RuntimeWarning):
            return show(message, category, filename, lineno, file, line)
        try:
            where = origin(message, filename, lineno)
        except Exception:                  # noqa: BLE001 - never lose a warning to the re-attribution
            where = None
        if where is None:
            return show(message, category, filename, lineno, file, line)
        if where.raised_registry is not None:    # the same warning from another user line: shown too
            where.raised_registry.pop((str(message), category, lineno), None)
        _local.busy = True
        try:
            # module=None given explicitly shows nothing on Python 3.11 (a notebook cell has no module):
            # leave it out then, and the filters derive it from the file name
            known = {"module": where.module} if where.module is not None else {}
            warnings.warn_explicit(where.text, category, where.filename, where.lineno, registry=where.registry,
                                   module_globals=where.module_globals, **known)
        finally:
            _local.busy = False

    show_reattributed.reattributes = show
    return show_reattributed


def install():
    """Wrap ``warnings.showwarning`` with ``reattributing`` (once: the compiler calls this on import)."""
    if getattr(warnings.showwarning, "reattributes", None) is None:
        warnings.showwarning = reattributing(warnings.showwarning)
