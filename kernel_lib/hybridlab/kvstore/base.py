"""``KVStoreBase`` (the interface every key-value store implements, with its registry), the
``TestStore`` registered under 'teststore', and ``create``: MXNet 1.9.1's ``mxnet.kvstore.base``.

A store class registered with ``KVStoreBase.register`` is created by ``create(<class name, lower
case>)``; any other name is one of the built-in single-process stores (``KVStore``: 'local',
'device', 'local_allreduce_cpu', ...). Distributed stores ('dist_sync', 'dist_device_sync',
'dist_async', horovod, byteps) and NCCL are not available in one process: asking for one is an
``MXNetError`` saying so.

Example::

    >>> import hybridlab as mx
    >>> kv = mx.kv.create('teststore')
    >>> kv.type, kv.rank, kv.num_workers, kv.is_capable('optimizer')
    ('teststore', 0, 1, False)
    >>> out = [mx.nd.zeros((2,)), mx.nd.zeros((2,))]
    >>> kv.pushpull(0, [mx.nd.ones((2,)), mx.nd.ones((2,)) * 2], out=out)
    >>> out[1].asnumpy().tolist()
    [3.0, 3.0]
"""
import warnings

from ..base import MXNetError
from ..ndarray.ndarray import NDArray

__all__ = ["create", "KVStoreBase", "TestStore"]


class KVStoreBase:
    """The interface of a key-value store for data-parallel training: ``broadcast``, ``pushpull``,
    ``set_optimizer``, ``is_capable``, optimizer states, ``type``, ``rank``, ``num_workers``.
    Subclasses registered with ``KVStoreBase.register`` can be made with ``mx.kv.create``."""

    OPTIMIZER = "optimizer"
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        """Broadcast ``value`` (rank 0's) under ``key`` and store it in ``out`` (an NDArray or list)."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Sum ``value`` (an NDArray or list, one per device) under ``key`` and write the result to
        ``out`` (to ``value`` itself when ``out`` is None)."""
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        """Run ``optimizer`` on the stored values when gradients are pushed."""
        raise NotImplementedError()

    def is_capable(self, capability):
        """Whether this store supports ``capability`` (``KVStoreBase.OPTIMIZER``: updates on push)."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the optimizer states (with ``dump_optimizer`` also the optimizer's settings)."""
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        """Read optimizer states written by ``save_optimizer_states``."""
        raise NotImplementedError()

    @property
    def type(self):
        """The store's type name."""
        raise NotImplementedError()

    @property
    def rank(self):
        """This worker's rank, in ``[0, num_workers)``."""
        raise NotImplementedError()

    @property
    def num_workers(self):
        """The number of workers."""
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Register the KVStoreBase subclass ``klass`` (a class decorator): ``mx.kv.create(name)``
        then makes one, ``name`` being the class name in lower case. Registering a name again
        replaces the earlier class, with a warning.

        >>> import hybridlab as mx
        >>> @mx.kvstore.KVStoreBase.register
        ... class MyKVStore(mx.kvstore.KVStoreBase):
        ...     pass
        >>> type(mx.kv.create('MyKVStore')).__name__
        'MyKVStore'
        """
        if not isinstance(klass, type):
            raise TypeError(f"KVStoreBase.register: expected a class, got {type(klass).__name__}")
        name = klass.__name__.lower()
        old = KVStoreBase.kv_registry.get(name)
        if old is not None:
            warnings.warn(f"WARNING: New kvstore {klass.__module__}.{klass.__name__} is overriding existing "
                          f"kvstore {old.__module__}.{old.__name__}", stacklevel=2)
        KVStoreBase.kv_registry[name] = klass
        return klass


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


class OneWorker:
    """``rank`` 0 and ``num_workers`` 1: the stores of one process (mixed in before KVStoreBase)."""

    @property
    def rank(self):
        """Always 0: one worker."""
        return 0

    @property
    def num_workers(self):
        """Always 1: one worker."""
        return 1


@KVStoreBase.register
class TestStore(OneWorker, KVStoreBase):
    """A store for tests: ``pushpull`` sums the values given and writes the sum out, ``broadcast``
    copies; nothing is kept, and it cannot run an optimizer (``is_capable('optimizer')`` is False,
    so a Trainer using it updates the weights itself)."""

    def broadcast(self, key, value, out, priority=0):
        for o in _as_list(out):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            total, targets = value, ([] if out is None else _as_list(out))
        else:
            device = value[0].device
            total = value[0].as_in_context(device)
            for v in value[1:]:
                total = total + v.as_in_context(device)
            targets = list(value) if out is None else _as_list(out)
        for o in targets:
            o[:] = total.as_in_context(o.device)

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError(f"Unknown capability: {capability} (expected '{KVStoreBase.OPTIMIZER}')")

    @property
    def type(self):
        return "teststore"

    def set_optimizer(self, optimizer):
        raise NotImplementedError("TestStore cannot run an optimizer (is_capable('optimizer') is False)")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError("TestStore keeps no optimizer states")

    def load_optimizer_states(self, fname):
        raise NotImplementedError("TestStore keeps no optimizer states")


_DISTRIBUTED = ("dist", "horovod", "byteps")


def create(name="local"):
    """A new key-value store of type ``name``.

    Single process: ``'local'`` (values are summed and kept on the CPU) and ``'device'`` (summed
    and kept on the device of the first value; 2-bit gradient compression available); the other
    local names MXNet knows ('local_update_cpu', 'local_allreduce_cpu', 'local_allreduce_device')
    behave as these and report their own ``type``. A name registered with ``KVStoreBase.register``
    makes that class. Synchronous distributed types ('dist_sync', 'dist_device_sync', 'dist') make a
    ``DistKVStore`` over the MPI world (``python -m hybridlab.launch`` starts the workers);
    'dist_async' and 'nccl' are an MXNetError here.

    >>> import hybridlab as mx
    >>> kv = mx.kv.create('device')
    >>> kv.init(3, mx.nd.zeros((2,)))
    >>> kv.push(3, [mx.nd.ones((2,)), mx.nd.ones((2,))])
    >>> out = mx.nd.zeros((2,))
    >>> kv.pull(3, out=out)
    >>> out.asnumpy().tolist()
    [2.0, 2.0]
    >>> try:
    ...     mx.kv.create('dist_async')
    ... except mx.MXNetError as err:
    ...     print(str(err)[:65])
    kvstore 'dist_async': asynchronous updates need parameter servers
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if "dist" in name and "async" in name:
        raise MXNetError(f"kvstore {name!r}: asynchronous updates need parameter servers, which hybridlab does "
                         "not run; expected a synchronous type: 'dist_sync' or 'dist_device_sync' (MPI)")
    from .dist import SYNC_TYPES
    if name in SYNC_TYPES:
        from .dist import DistKVStore
        return DistKVStore(name)
    if any(d in name for d in _DISTRIBUTED):
        raise MXNetError(f"kvstore {name!r}: not available in hybridlab; expected 'local', 'device', "
                         "'dist_sync' or 'dist_device_sync'")
    if name == "nccl":
        raise MXNetError("kvstore 'nccl': NCCL is not available in hybridlab; expected 'local' or 'device' "
                         "(which sum over every device)")
    from .kvstore import KVStore
    return KVStore(name)
