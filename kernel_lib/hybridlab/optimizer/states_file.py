"""The optimizer states file (``Updater.get_states`` / ``Trainer.save_states``): an ``mx.nd.save``
dict of the state arrays under ``"<index>/<path>"`` plus ``"__hybridlab_optimizer__"``, a uint8 array
holding JSON: ``{"format": "hybridlab-optimizer-states/1", "states": {index: [key kind, layout]},
"optimizer": name or null, "config": {hyperparameter: value} or null}``. No pickle, no eval: the
file is untrusted, so the JSON is checked field by field, hyperparameters against their types
(``check_hyper``) and loaded states against the states their weights need (``check_state``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.optimizer.states_file import check_hyper
    >>> check_hyper("momentum", 0.9, 0.0, 0.0, "t.states")
    0.9
    >>> try:
    ...     check_hyper("momentum", "0.9", 0.0, 0.0, "t.states")
    ... except mx.MXNetError as err:
    ...     print(err)
    optimizer states 't.states': config key 'momentum': expected a finite number, got '0.9' (str)
"""
import math

import numpy as np

from ..base import MXNetError
from ..fileio import parse_json
from ..ndarray.ndarray import NDArray

__all__ = ["check_hyper", "check_state", "flatten_state", "parse_states", "unflatten_state"]

_TABLES = {"lr_mult": "number", "wd_mult": "number", "idx2name": "str", "_index_update_count": "count"}
_COUNTERS = ("num_update", "begin_num_update", "aggregate_num")


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_hyper(key, value, current, default, source):
    """``value`` for hyperparameter ``key`` if its type fits, else MXNetError: numbers stay finite
    numbers (counters non-negative ints), booleans booleans, strings strings; None only where the
    optimizer's default is None (or ``lr``, None under a scheduler); the four tables are lists of
    [index or name, value] pairs."""
    def bad(expected):
        return MXNetError(f"optimizer states {source!r}: config key {key!r}: expected {expected}, "
                          f"got {str(value)[:80]!r} ({type(value).__name__})")

    if key in _TABLES:
        kind = _TABLES[key]
        if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
            raise bad("a list of [index or name, value] pairs")
        out = {}
        for k, v in value:
            ok_value = {"number": _is_number, "str": lambda x: isinstance(x, str),
                        "count": lambda x: isinstance(x, int) and not isinstance(x, bool) and x >= 0}[kind](v)
            if not (isinstance(k, (int, str)) and not isinstance(k, bool)) or not ok_value:
                raise bad(f"[int or str, {kind}] pairs")
            out[k] = v
        return out
    if key in _COUNTERS:
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
            raise bad("an integer >= 0")
        return value
    if value is None:
        if default is None or current is None or key == "lr":
            return None
        raise bad(f"a {type(current).__name__}, not None")
    reference = current if current is not None else default
    if reference is None:          # a None default: a number or a flag
        if _is_number(value) or isinstance(value, bool):
            return value
        raise bad("a number, a boolean or None")
    if isinstance(reference, bool):
        if isinstance(value, bool):
            return value
        raise bad("a boolean")
    if _is_number(reference):
        if _is_number(value):
            return value
        raise bad("a finite number")
    if isinstance(reference, str) and isinstance(value, str):
        return value
    raise bad(type(reference).__name__)


def flatten_state(state, path, out):
    if state is None:
        return None
    if isinstance(state, NDArray):
        out[path] = state
        return path
    return [flatten_state(s, f"{path}/{j}", out) for j, s in enumerate(state)]


_MAX_STATE_DEPTH = 8     # states nest a few levels deep (multi-precision: (master, (mean, var)))
_MAX_META_DEPTH = 32     # JSON nesting read at all (the layouts are checked against _MAX_STATE_DEPTH after)


def parse_states(states, source):
    """(meta, arrays) of a states file, the JSON layout checked field by field."""
    from ..ndarray.params_file import loads
    data = loads(states, source)
    if not isinstance(data, dict) or "__hybridlab_optimizer__" not in data:
        raise MXNetError(f"optimizer states {source!r}: expected a file written by Trainer.save_states / "
                         "Updater.get_states (an NDArray dict with '__hybridlab_optimizer__'), got "
                         f"{'a list' if isinstance(data, list) else sorted(data)[:5]}")
    raw = data["__hybridlab_optimizer__"]
    if raw is None or raw.dtype != np.uint8 or raw.ndim != 1:
        raise MXNetError(f"optimizer states {source!r}: '__hybridlab_optimizer__': expected a 1-D uint8 array "
                         f"of JSON, got {'none' if raw is None else f'{raw.dtype} {raw.shape}'}")
    meta = parse_json(raw.asnumpy().tobytes(), f"optimizer states {source!r}: '__hybridlab_optimizer__'",
                      _MAX_META_DEPTH)
    if not isinstance(meta, dict) or meta.get("format") != "hybridlab-optimizer-states/1":
        got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise MXNetError(f"optimizer states {source!r}: expected format 'hybridlab-optimizer-states/1', "
                         f"got {str(got)[:80]!r}")
    layout = meta.get("states")
    if not isinstance(layout, dict):
        raise MXNetError(f"optimizer states {source!r}: 'states': expected an object index -> layout, got "
                         f"{type(layout).__name__}")
    for key, entry in layout.items():
        ok = isinstance(entry, list) and len(entry) == 2 and entry[0] in ("int", "str")
        if ok and entry[0] == "int":
            ok = key.lstrip("-").isdigit() and key.isascii() and len(key) < 20
        if not ok:
            raise MXNetError(f"optimizer states {source!r}: state {key[:80]!r}: expected [\"int\" or \"str\", "
                             f"layout], got {str(entry)[:80]}")
    return meta, data


def unflatten_state(tree, data, source="<optimizer states>", key="", depth=0):
    if tree is None:
        return None
    if isinstance(tree, str):
        value = data.get(tree)
        if not isinstance(value, NDArray) or tree == "__hybridlab_optimizer__":
            raise MXNetError(f"optimizer states {source!r}: state {key!r}: the array {tree[:80]!r} named in the "
                             "layout is missing from the file")
        return value
    if not isinstance(tree, list) or depth >= _MAX_STATE_DEPTH:
        raise MXNetError(f"optimizer states {source!r}: state {key!r}: expected a layout of array names, None "
                         f"and lists at most {_MAX_STATE_DEPTH} deep, got {str(tree)[:80]}")
    return tuple(unflatten_state(t, data, source, key, depth + 1) for t in tree)


def check_state(got, expected, where):
    """MXNetError unless ``got`` (a loaded state) has ``expected``'s nesting, shapes and dtypes."""
    if isinstance(expected, NDArray):
        if not isinstance(got, NDArray) or got.shape != expected.shape or got.dtype != expected.dtype:
            desc = f"{got.shape} {got.dtype}" if isinstance(got, NDArray) else type(got).__name__
            raise MXNetError(f"{where}: expected an array {expected.shape} {expected.dtype}, got {desc}")
    elif expected is None:
        if got is not None:
            raise MXNetError(f"{where}: expected no state, got {type(got).__name__}")
    else:
        if not isinstance(got, tuple) or len(got) != len(expected):
            raise MXNetError(f"{where}: expected a tuple of {len(expected)} states, got "
                             f"{len(got) if isinstance(got, tuple) else type(got).__name__}")
        for g, e in zip(got, expected):
            check_state(g, e, where)
