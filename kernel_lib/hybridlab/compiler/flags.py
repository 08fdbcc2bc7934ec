"""MXNet's CachedOp flags (``hybridize(static_alloc=True, ...)``): the fields of MXNet's
``CachedOpConfig`` with their defaults, and ``parse_flags``, which checks and fills them in.

Example::

    >>> from hybridlab.compiler.flags import parse_flags
    >>> f = parse_flags([("static_alloc", "true"), ("inline_limit", 4)])
    >>> f["static_alloc"], f["static_shape"], f["inline_limit"]
    (True, False, 4)
"""
from ..base import MXNetError

__all__ = ["FLAG_DEFAULTS", "parse_flags"]

# MXNet's CachedOpConfig fields and defaults (src/imperative/cached_op.h). static_alloc plans the
# predict programs' buffers (compiler/memory.py); inline_limit sizes the segments of a partitioned
# graph that run op by op (compiler/partitioned.py); the others are accepted and kept (a program is
# one Python function: there is nothing to bulk).
FLAG_DEFAULTS = {"static_alloc": False, "static_shape": False, "is_dynamic": False, "inline_limit": 2,
                 "forward_bulk_size": 15, "backward_bulk_size": 15, "data_indices": (),
                 "param_indices": (), "subgraph": ""}


def _flag_value(key, value):
    default = FLAG_DEFAULTS[key]
    if isinstance(default, bool):
        if isinstance(value, str):
            if value.strip().lower() not in ("true", "false", "1", "0"):
                raise MXNetError(f"CachedOp flag '{key}' expected a boolean, got {value!r}")
            return value.strip().lower() in ("true", "1")
        return bool(value)
    if isinstance(default, int):
        return int(value)
    if isinstance(default, tuple):
        if isinstance(value, str):
            return tuple(int(v) for v in value.strip("()[] ").split(",") if v.strip())
        return tuple(int(v) for v in (value or ()))
    return str(value)


def parse_flags(flags):
    """MXNet's hybridize flags (a dict or a list of (key, value) pairs) with defaults filled in."""
    items = flags.items() if isinstance(flags, dict) else (flags or ())
    out = dict(FLAG_DEFAULTS)
    for key, value in items:
        if key not in FLAG_DEFAULTS:
            raise MXNetError(f"Cannot find argument '{key}', Possible Arguments: "
                             f"{', '.join(FLAG_DEFAULTS)} (CachedOp flags)")
        out[key] = _flag_value(key, value)
    if out["static_shape"] and not out["static_alloc"]:
        raise MXNetError("static_alloc must be True when static_shape is True")
    return out
