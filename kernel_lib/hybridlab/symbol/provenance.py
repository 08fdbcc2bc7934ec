"""Where a graph node came from: the Block scope path (``["net0", "dense1"]``) and the user's source
line that created it. Stored in ``node.meta["scope"]`` and ``node.meta["source"]`` by every node
builder (symbol composition and deferred-compute tracing) for error messages and the graph view."""
import linecache
import os
import sys
import threading

__all__ = ["scope", "current_scope", "user_source", "annotate"]

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


def user_source():
    """``{"file", "line", "code"}`` of the innermost stack frame outside hybridlab (the user's line)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return None
    filename, line = frame.f_code.co_filename, frame.f_lineno
    return {"file": filename, "line": line, "code": linecache.getline(filename, line).strip()}


def annotate(node):
    """Record the current scope and the user's source line on ``node.meta``."""
    node.meta["scope"] = current_scope()
    node.meta["source"] = user_source()
    return node
