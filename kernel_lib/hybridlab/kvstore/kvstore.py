"""``KVStore``: MXNet 1.9.1's single-process key-value store ('local', 'device' and the other
local types), what ``mx.kv.create`` returns for them.

Keys are ints or strings (one kind per store); values are NDArrays, or lists of NDArrays (one per
device) that ``push`` sums. Each key holds one array: on the CPU for the 'local' types, on the
first value's device for the 'device' types. Without an updater a ``push`` replaces the held value
with the sum; with one (``set_optimizer``, ``_set_updater``) the store calls
``updater(key, summed, held)``, which changes the held value in place. ``pull`` copies the held
value out (skipping row_sparse outputs unless ``ignore_sparse=False``, as MXNet),
``row_sparse_pull`` copies only the given rows of a row_sparse value (hybridlab stores row_sparse
arrays densely: the other rows are zero). Optimizer states are saved as ``Updater.get_states``
writes them (an ``mx.nd.save`` file, no pickle).

Example::

    >>> import hybridlab as mx
    >>> kv = mx.kv.create('local')
    >>> kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    >>> kv.init('w', mx.nd.ones((2,)))
    >>> kv.push('w', [mx.nd.ones((2,)), mx.nd.ones((2,))])   # gradient 2: w = 1 - 0.1 * 2
    >>> w = mx.nd.zeros((2,))
    >>> kv.pull('w', out=w)
    >>> [round(v, 6) for v in w.asnumpy().tolist()]
    [0.8, 0.8]
"""
import os

import numpy as np

from .. import optimizer as opt
from ..base import MXNetError
from ..write_versions import wrote
from ..device import cpu
from ..fileio import read_file, write_atomic
from ..ndarray.ndarray import NDArray
from .base import KVStoreBase, OneWorker

__all__ = ["KVStore"]


def _kind(key):
    if isinstance(key, str):
        return "str"
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return "int"
    raise MXNetError(f"kvstore: a key must be an int or a str, got {key!r} ({type(key).__name__})")


def _is_values(v):
    return isinstance(v, NDArray) or (isinstance(v, (list, tuple)) and v and
                                      all(isinstance(x, NDArray) for x in v))


def _pairs(key, value, what):
    """[(key, [NDArray, ...])] for a key or list of keys with their value(s)."""
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            got = f"{len(value)} values" if isinstance(value, (list, tuple)) else type(value).__name__
            raise MXNetError(f"kvstore.{what}: expected one value (or list of values) per key for {len(key)} "
                             f"keys, got {got}")
        out = []
        for k, v in zip(key, value):
            out += _pairs(k, v, what)
        return out
    if not _is_values(value):
        raise MXNetError(f"kvstore.{what}: key {key!r}: expected an NDArray or a non-empty list of NDArrays, "
                         f"got {type(value).__name__}")
    return [(key, [value] if isinstance(value, NDArray) else list(value))]


def _wrap_like(cls, xp_array, device):
    return cls._wrap(xp_array, device)


class KVStore(OneWorker, KVStoreBase):
    """A single-process key-value store of type ``name`` (made by ``mx.kv.create``)."""

    def __init__(self, name="local"):
        self._type = name
        self._store = {}
        self._key_kind = None
        self._updater = None
        self._compression = None      # (threshold) of 2-bit compression
        self._residuals = {}

    def __repr__(self):
        return f"KVStore(type={self._type!r}, {len(self._store)} keys)"

    # ---- properties -------------------------------------------------------------------------
    @property
    def type(self):
        """The type name given to ``create`` ('local', 'device', ...)."""
        return self._type

    def is_capable(self, capability):
        """True for ``'optimizer'`` (updates on push); another capability is a ValueError."""
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError(f"Unknown capability: {capability} (expected '{KVStoreBase.OPTIMIZER}')")

    def _barrier(self):
        """Wait for all workers: nothing to wait for with one."""

    barrier = _barrier

    # ---- keys -------------------------------------------------------------------------------
    def _check_key(self, key, what, initialized=True):
        kind = _kind(key)
        if self._key_kind is None:
            self._key_kind = kind
        elif kind != self._key_kind:
            raise MXNetError(f"kvstore.{what}: mixed key types are not allowed: this store uses {self._key_kind} "
                             f"keys, got {key!r} ({kind})")
        if initialized and key not in self._store:
            raise MXNetError(f"kvstore.{what}: key {key!r} has not been initialized (call init first)")

    def _held_device(self, value):
        return cpu() if "device" not in self._type else value.device

    def init(self, key, value):
        """Give each key (an int or str, or a list of them) its first value (an NDArray, or a list
        matching the keys). Initialising a key twice is an MXNetError, as in MXNet.

        >>> import hybridlab as mx
        >>> kv = mx.kv.create()
        >>> kv.init([5, 7], [mx.nd.ones((2,)), mx.nd.zeros((2,))])
        >>> out = mx.nd.empty((2,))
        >>> kv.pull(5, out=out)
        >>> out.asnumpy().tolist()
        [1.0, 1.0]
        """
        pairs = _pairs(key, value, "init")
        for k, vals in pairs:
            self._check_key(k, "init", initialized=False)
            if k in self._store:
                raise MXNetError(f"kvstore.init: duplicate init of key {k!r}: a key is initialized once (by init "
                                 "or broadcast)")
            if len(vals) != 1:
                raise MXNetError(f"kvstore.init: key {k!r}: expected one value, got a list of {len(vals)}")
        for k, vals in pairs:
            v = vals[0]
            device = self._held_device(v)
            data = device.put(v._data).copy() if device != v.device else v._data.copy()
            self._store[k] = _wrap_like(type(v), data, device)

    def _check_shape(self, k, arr, what):
        held = self._store[k]
        if arr.shape != held.shape:
            raise MXNetError(f"kvstore.{what}: key {k!r}: expected shape {held.shape} (the initialized value), "
                             f"got {arr.shape}")

    # ---- push / pull ------------------------------------------------------------------------
    def _checked_pairs(self, key, arrays, what):
        """``[(key, [NDArray, ...])]`` for ``what`` (push/pull), every key initialised and every
        array of its shape, checked before any is used (a bad pair changes nothing)."""
        pairs = _pairs(key, arrays, what)
        for k, vals in pairs:
            self._check_key(k, what)
            for v in vals:
                self._check_shape(k, v, what)
        return pairs

    def push(self, key, value, priority=0):
        """Push values: the values of one key (a list: one per device) are summed; the sum replaces
        the held value, or is given to the updater (``set_optimizer``) with the held value.
        ``priority`` is accepted (operations run in order here)."""
        for k, vals in self._checked_pairs(key, value, "push"):
            held = self._store[k]
            device = held.device
            parts = [device.put(self._compress(k, j, v)) for j, v in enumerate(vals)]
            total = parts[0].astype(held.dtype, copy=True)
            for p in parts[1:]:
                total += p
            total = self._combine(k, total, held)
            if self._updater is not None:
                recv = _wrap_like(type(vals[0]), total, device)
                self._updater(k, recv, held)
            else:
                held._data[...] = total
                wrote(held)

    def _combine(self, key, total, held):
        """The value a push delivers, from this process's sum over devices: itself here; the
        distributed stores add the workers' sums."""
        return total

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's held value into ``out`` (an NDArray or list, one per device). Row-sparse
        outputs are skipped (left unchanged) unless ``ignore_sparse=False``, as in MXNet."""
        if out is None:
            raise MXNetError("kvstore.pull: expected out (an NDArray or list of NDArrays), got None")
        for k, outs in self._checked_pairs(key, out, "pull"):
            held = self._store[k]
            for o in outs:
                if ignore_sparse and o.stype != "default":
                    continue
                o._data[...] = o.device.put(held._data).astype(o.dtype, copy=False)
                wrote(o)

    def pushpull(self, key, value, out=None, priority=0):
        """``push(key, value)`` then ``pull`` into ``out`` (into ``value`` itself if ``out`` is None).

        >>> import hybridlab as mx
        >>> kv = mx.kv.create('device')
        >>> kv.init(0, mx.nd.zeros((2,)))
        >>> grads = [mx.nd.ones((2,)), mx.nd.ones((2,)) * 3]
        >>> kv.pushpull(0, grads)
        >>> [g.asnumpy().tolist() for g in grads]
        [[4.0, 4.0], [4.0, 4.0]]
        """
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority, ignore_sparse=False)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` then ``pull(key, out)``: every device starts from ``value``."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copy the rows ``row_ids`` (an NDArray of row indices, or a list: one per output) of each
        key's row_sparse value into ``out`` (row_sparse NDArrays); the other rows of ``out`` become
        zero. With one ``row_ids`` and a list of outputs every output gets those rows.

        >>> import hybridlab as mx
        >>> kv = mx.kv.create()
        >>> kv.init('e', mx.nd.ones((3, 2)).tostype('row_sparse'))
        >>> out = mx.nd.zeros((3, 2)).tostype('row_sparse')
        >>> kv.row_sparse_pull('e', out=out, row_ids=mx.nd.array([0, 2]))
        >>> out.asnumpy().tolist()
        [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
        """
        if out is None or row_ids is None:
            raise MXNetError(f"kvstore.row_sparse_pull: expected out and row_ids, got out={type(out).__name__}, "
                             f"row_ids={type(row_ids).__name__}")
        if isinstance(key, (list, tuple)):
            if not isinstance(row_ids, (list, tuple)) or len(row_ids) != len(key):
                raise MXNetError(f"kvstore.row_sparse_pull: expected one row_ids entry per key ({len(key)}), got "
                                 f"{len(row_ids) if isinstance(row_ids, (list, tuple)) else type(row_ids).__name__}")
            jobs = []
            for k, o, r in zip(key, _pairs(key, out, "row_sparse_pull"), row_ids):
                jobs += self._rsp_jobs(k, o[1], r)
        else:
            jobs = self._rsp_jobs(key, _pairs(key, out, "row_sparse_pull")[0][1], row_ids)
        for k, o, _ in jobs:
            self._check_key(k, "row_sparse_pull")
            self._check_shape(k, o, "row_sparse_pull")
            if o.stype != "row_sparse":
                raise MXNetError(f"kvstore.row_sparse_pull: key {k!r}: expected row_sparse outputs, got storage "
                                 f"type {o.stype!r} (use pull for dense values)")
            if self._store[k].stype != "row_sparse":
                raise MXNetError(f"kvstore.row_sparse_pull: key {k!r}: expected a row_sparse value in the store "
                                 f"(init the key with a row_sparse array), got {self._store[k].stype!r}")
        for k, o, rows in jobs:
            held = self._store[k]
            host = np.zeros(held.shape, dtype=o.dtype)
            ids = np.unique(rows.asnumpy().astype(np.int64).ravel())
            if ids.size and (ids[0] < 0 or ids[-1] >= held.shape[0]):
                raise MXNetError(f"kvstore.row_sparse_pull: key {k!r}: row ids expected in [0, {held.shape[0]}), "
                                 f"got {ids[0] if ids[0] < 0 else ids[-1]}")
            host[ids] = cpu().put(held._data)[ids]
            o._data[...] = o.device.put(host)
            wrote(o)

    @staticmethod
    def _rsp_jobs(key, outs, row_ids):
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        if not isinstance(row_ids, (list, tuple)) or not all(isinstance(r, NDArray) for r in row_ids):
            raise MXNetError(f"kvstore.row_sparse_pull: row_ids expected an NDArray or list of NDArrays, got "
                             f"{type(row_ids).__name__}")
        if len(row_ids) == 1:
            return [(key, o, row_ids[0]) for o in outs]
        if len(row_ids) != len(outs):
            raise MXNetError(f"kvstore.row_sparse_pull: key {key!r}: the number of row_ids ({len(row_ids)}) "
                             f"doesn't match the number of values ({len(outs)})")
        return [(key, o, r) for o, r in zip(outs, row_ids)]

    # ---- optimizer --------------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """Update the held values with ``optimizer`` on every push (its Updater becomes
        ``_updater``): the pushed sum is the gradient, the held value the weight."""
        if not isinstance(optimizer, opt.Optimizer):
            raise TypeError(f"set_optimizer expected an Optimizer, got {type(optimizer).__name__}")
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """Call ``updater(key, summed_pushed_value, held_value)`` on every push (it changes the held
        value in place); string keys are passed as str."""
        self._updater = updater

    def _require_updater(self, what):
        if not isinstance(self._updater, opt.Updater):
            raise AssertionError(f"kvstore.{what}: expected an optimizer on the store (set_optimizer), got "
                                 f"{'none' if self._updater is None else type(self._updater).__name__}")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the optimizer states (``dump_optimizer``: also its settings) to ``fname`` as an
        ``mx.nd.save`` file (``Updater.get_states``)."""
        self._require_updater("save_optimizer_states")
        write_atomic(fname, [self._updater.get_states(dump_optimizer=dump_optimizer)], "optimizer states file")

    def load_optimizer_states(self, fname):
        """Read states written by ``save_optimizer_states`` (an untrusted file: checked as
        ``Updater.set_states`` checks it)."""
        self._require_updater("load_optimizer_states")
        self._updater.set_states(read_file(fname, "optimizer states file"), source=os.fspath(fname))

    # ---- gradient compression ---------------------------------------------------------------
    def set_gradient_compression(self, compression_params):
        """Compress pushed gradients: ``{'type': '2bit', 'threshold': t}`` (t > 0, default 0.5)
        sends each element as +t, -t or 0 and keeps the rest as a residual added to the next push
        from the same device (MXNet's 2-bit compression; its values, computed densely). Only the
        'device' types support it; ``{'type': 'none'}`` turns it off.

        >>> import hybridlab as mx
        >>> kv = mx.kv.create('device')
        >>> kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        >>> kv.init(0, mx.nd.zeros((3,)))
        >>> out = mx.nd.zeros((3,))
        >>> for _ in range(2):
        ...     kv.push(0, mx.nd.array([0.3, 0.7, -2.0]))
        ...     kv.pull(0, out=out)
        ...     print(out.asnumpy().tolist())
        [0.0, 0.5, -0.5]
        [0.5, 0.5, -0.5]
        """
        if "device" not in self._type:
            raise MXNetError(f"Gradient compression is not supported for this type of kvstore: expected a "
                             f"'device' type, got {self._type!r}")
        if not isinstance(compression_params, dict):
            raise MXNetError(f"set_gradient_compression: expected a dict such as {{'type': '2bit', 'threshold': "
                             f"0.5}}, got {type(compression_params).__name__}")
        kind = compression_params.get("type")
        if kind is None:
            raise MXNetError("set_gradient_compression: required parameter 'type' is missing (expected '2bit' or "
                             "'none')")
        unknown = set(compression_params) - {"type", "threshold"}
        if unknown:
            raise MXNetError(f"set_gradient_compression: unknown parameters {sorted(unknown)}, expected 'type' "
                             "and 'threshold'")
        if kind == "none":
            self._compression, self._residuals = None, {}
            return
        if kind != "2bit":
            raise MXNetError(f"Unknown type for gradient compression {kind}: expected '2bit' or 'none'")
        try:
            threshold = float(compression_params.get("threshold", 0.5))
        except (TypeError, ValueError):
            threshold = float("nan")
        if not threshold > 0 or threshold == float("inf"):
            raise MXNetError(f"set_gradient_compression: threshold expected a number > 0, got "
                             f"{compression_params.get('threshold')!r}")
        self._compression, self._residuals = threshold, {}

    def _compress(self, key, j, value):
        if self._compression is None or value.stype != "default":
            return value._data
        t = self._compression
        xp = value.device.xp
        res = self._residuals.get((key, j))
        res = value._data.copy() if res is None or res.shape != value.shape else res + value._data
        q = xp.where(res >= t, t, xp.where(res <= -t, -t, 0.0)).astype(value.dtype)
        self._residuals[(key, j)] = res - q
        return q
