"""The one way text reaches generated source: identifiers, comments and literals made inert.

The compiler ``exec``s the Python programs it writes (``codegen``, ``backward``, the fused CPU
program in ``ops/fused``) and hands CuPy the C source of fused GPU kernels. Graphs come from model
files, which are untrusted, so **no string from a model, a user or a file reaches generated source
except through this module**:

* ``Namer`` makes identifiers: derived from a node name for readability, but only ever made of
  ``[A-Za-z0-9_]`` (everything else becomes ``_``), never a keyword, a builtin or a reserved name,
  bounded in length and unique within one program. ``check_identifier`` validates names the
  compiler makes itself (``buf0_n3``) before they are emitted.
* ``comment`` turns any text into ONE line of comment text: every line break and control character
  (``\\n``, ``\\r``, ``\\x0b``, ``\\x0c``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``, ``\\u2029``, NUL,
  bidirectional overrides, lone surrogates: Unicode categories Cc, Cf, Cs, Zl, Zp) becomes a space,
  a PEP 263 ``coding:`` cookie is defused, and the length is bounded. Comments and docstrings built
  from model strings use it.
* ``literal`` writes a validated number (``int``, ``float``, ``bool``, NumPy scalars of those, or a
  tuple of them) as Python source, spelling non-finite floats ``float('nan')``, ``float('inf')``,
  ``float('-inf')``; ``c_literal`` writes a float for CUDA C. Anything else is refused with an
  ``MXNetError``.

Example::

    >>> from hybridlab.compiler.source_text import Namer, comment, literal
    >>> name = Namer({"ctx"})
    >>> name("bn\\n    __import__('os').system('x')"), name("ctx"), name("sum")
    ('bn_______import____os___system__x__', 'ctx_1', 'sum_1')
    >>> comment("line\\r\\nbreak\\u2028and\\x85more")
    'line  break and more'
    >>> literal(float("nan")), literal(-float("inf")), literal((2, -1)), literal(True)
    ("float('nan')", "float('-inf')", '(2, -1)', 'True')
    >>> literal("__import__('os')")
    Traceback (most recent call last):
    ...
    hybridlab.base.MXNetError: generated source: expected a number (int, float, bool) ... got str "__import__('os')"
"""
import builtins
import keyword
import math
import numbers
import re
import unicodedata

import numpy as np

from ..base import MXNetError
from ..ops import fused as _fused

__all__ = ["Namer", "check_identifier", "comment", "literal", "c_literal"]

_NOT_IDENT = re.compile(r"[^0-9A-Za-z_]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# PEP 263: a comment on line 1 or 2 matching this declares the file's encoding (if the source is saved)
_COOKIE = re.compile(r"(coding)([:=])", re.IGNORECASE)
# names the generated module's globals or the interpreter give meaning to
_ALWAYS_RESERVED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {
    "_", "__builtins__", "__name__", "__loader__", "__file__", "__spec__", "__debug__", "__class__"}
MAX_IDENTIFIER = 80
_CHECKED = set()      # reserved names that passed check_identifier


class Namer:
    """Unique, valid Python identifiers derived from arbitrary (untrusted) text.

    ``reserved`` names are never handed out (besides builtins, keywords and module dunders). A name
    is the text with every character outside ``[A-Za-z0-9_]`` replaced by ``_``, prefixed with ``v``
    when it would start with a digit, cut to ``MAX_IDENTIFIER`` characters and suffixed ``_1``,
    ``_2``... when taken.

    Example::

        >>> n = Namer()
        >>> n("fc1"), n("fc1"), n("1st layer"), n("")
        ('fc1', 'fc1_1', 'v1st_layer', 'v')
    """

    def __init__(self, reserved=()):
        self.used = set(_ALWAYS_RESERVED)
        for name in reserved:
            if name not in _CHECKED:            # the compiler's own names: each checked once
                _CHECKED.add(check_identifier(name))
            self.used.add(name)

    def __call__(self, text):
        base = _NOT_IDENT.sub("_", str(text))[:MAX_IDENTIFIER] or "v"
        if base[0].isdigit():
            base = "v" + base
        name, i = base, 1
        while name in self.used:
            name, i = f"{base}_{i}", i + 1
        self.used.add(name)
        return name


def check_identifier(name):
    """``name`` if it is a plain ASCII identifier and not a keyword, else an ``MXNetError``: for the
    names the compiler builds itself (``buf0_n3``, ``x0``) before they are emitted.

    Example::

        >>> check_identifier("buf0_n3")
        'buf0_n3'
    """
    if not isinstance(name, str) or not _IDENT.fullmatch(name) or keyword.iskeyword(name):
        raise MXNetError(f"generated source: expected an identifier matching [A-Za-z_][A-Za-z0-9_]* "
                         f"(not a keyword), got {type(name).__name__} {str(name)[:80]!r}")
    return name


def comment(text, limit=160):
    """``text`` as one line of comment text: line breaks and other control/format characters become
    spaces, an encoding cookie (``coding:``) is broken up, and the result is cut to ``limit``
    characters (ending in ``...``). Safe after ``#`` in generated Python: quotes and backslashes do
    nothing there, and nothing can end the comment but the line break the generator writes.

    Example::

        >>> comment("a\\nb\\x0bc\\x0cd\\x1ce\\u2029f")
        'a b c d e f'
        >>> comment("x" * 10, limit=8)
        'xxxxx...'
    """
    text = str(text)[:limit + 1]        # the mapping keeps the length: cut first, scan less
    if not (text.isascii() and text.isprintable()):
        text = "".join(" " if unicodedata.category(ch) in _UNSAFE_CATEGORIES else ch for ch in text)
    text = _COOKIE.sub(r"\1 \2", text)
    return text if len(text) <= limit else text[:max(limit - 3, 0)] + "..."


def _number(value):
    """The Python number behind ``value`` (bool, int or float), or ``None``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) or (isinstance(value, numbers.Real)
                                                   and not isinstance(value, numbers.Rational)):
        return float(value)
    return None


def literal(value):
    """Python source for a validated number or tuple of numbers (see the module docstring);
    non-finite floats are spelled with ``float('...')`` (``float`` is a builtin the namers never
    hand out). Anything else raises ``MXNetError``.

    Example::

        >>> literal(0.1), literal(np.float32(0.5)), literal(np.int64(3)), literal(float('inf'))
        ('0.1', '0.5', '3', "float('inf')")
    """
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    v = _number(value)
    if v is None:
        raise MXNetError(f"generated source: expected a number (int, float, bool) or a tuple of numbers "
                         f"for a literal, got {type(value).__name__} {str(value)[:80]!r}")
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return int.__repr__(v)        # the base repr: a subclass cannot choose its own text
    if math.isnan(v):
        return "float('nan')"
    if math.isinf(v):
        return "float('inf')" if v > 0 else "float('-inf')"
    return float.__repr__(v)


def c_literal(value):
    """CUDA C source for a validated real number, as a double (callers cast it to their type):
    ``repr`` of the float when finite, a bit pattern for NaN and the infinities (CUDA C has no
    ``nan`` / ``inf`` names without headers).

    Example::

        >>> c_literal(2), c_literal(float('nan')), c_literal(float('-inf'))
        ('2.0', '__longlong_as_double(0x7ff8000000000000LL)', '(-__longlong_as_double(0x7ff0000000000000LL))')
    """
    v = _number(value)
    if v is None:
        raise MXNetError(f"generated kernel source: expected a real number for a C literal, got "
                         f"{type(value).__name__} {str(value)[:80]!r}")
    v = float(v)
    if math.isnan(v):
        return "__longlong_as_double(0x7ff8000000000000LL)"
    if math.isinf(v):
        inf = "__longlong_as_double(0x7ff0000000000000LL)"
        return inf if v > 0 else f"(-{inf})"
    return float.__repr__(v)


# ops/fused.py generates the fused elementwise programs; it sits below the compiler, so the writers
# are handed down rather than imported up
_fused.use_source_text(literal, c_literal)
