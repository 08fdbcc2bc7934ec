"""Where a graph node came from: the Block scope path (``["net0", "dense1"]``) and the user's source
line that created it. Stored in ``node.meta["scope"]`` and ``node.meta["source"]`` by every node
builder (symbol composition and deferred-compute tracing) for error messages and the graph view."""
import linecache
import os
import sys
import threading

__all__ = ["scope", "current_scope", "in_package", "user_source", "user_stacklevel", "annotate", "where"]

_local = threading.local()
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def current_scope():
    """The Block path being traced, outermost first (empty outside any block)."""
    return list(getattr(_local, "stack", ()))


class scope:
    """Context manager: nodes built inside belong to Block ``name`` (nested scopes form a path)."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        if not hasattr(_local, "stack"):
            _local.stack = []
        _local.stack.append(self.name)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        return False


_IN_PACKAGE = {}      # code file name -> whether it is hybridlab's own


def in_package(filename):
    """Whether code from ``filename`` is hybridlab's (kept per name: every node built asks this for
    each frame on the stack, and ``abspath`` was most of the cost of tracing a graph)."""
    inside = _IN_PACKAGE.get(filename)
    if inside is None:
        if len(_IN_PACKAGE) > 4096:      # generated code has ever new names: stay bounded
            _IN_PACKAGE.clear()
        inside = _IN_PACKAGE[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return inside


def user_source():
    """``{"file", "line", "code"}`` of the innermost stack frame outside hybridlab (the user's line)."""
    frame = sys._getframe(1)
    while frame is not None and in_package(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    filename, line = frame.f_code.co_filename, frame.f_lineno
    return {"file": filename, "line": line, "code": linecache.getline(filename, line).strip()}


def user_stacklevel():
    """The ``stacklevel`` for a ``warnings.warn`` in the caller that points at the user's line (the
    innermost frame outside hybridlab), whatever the depth of hybridlab's frames in between."""
    frame, level = sys._getframe(2), 2
    while frame is not None and in_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def annotate(node):
    """Record the current scope and the user's source line on ``node.meta``."""
    node.meta["scope"] = current_scope()
    node.meta["source"] = user_source()
    return node


def where(node):
    """`` (created at file:line: code)`` for a node that knows its user source line, else ``''``."""
    src = node.meta.get("source") if node.meta else None
    if not src:
        return ""
    return f" (created at {src['file']}:{src['line']}: {src['code']})"
