"""``mx.kv`` / ``mx.kvstore``: MXNet 1.9.1's key-value stores for data-parallel training, in one
process ('local', 'device') or over the processes of an MPI world ('dist_sync', 'dist_device_sync':
``DistKVStore``): ``create``, ``KVStore``, ``KVStoreBase`` (with its registry) and ``TestStore``.

Example::

    >>> import hybridlab as mx
    >>> kv = mx.kv.create('local')
    >>> kv.init('a', mx.nd.zeros((2, 2)))
    >>> kv.push('a', [mx.nd.ones((2, 2))] * 4)
    >>> out = mx.nd.zeros((2, 2))
    >>> kv.pull('a', out=out)
    >>> out.asnumpy().tolist()
    [[4.0, 4.0], [4.0, 4.0]]
"""
from .base import create, KVStoreBase, TestStore  # noqa: F401
from .kvstore import KVStore  # noqa: F401
from .for_devices import for_devices  # noqa: F401
from .dist import DistKVStore  # noqa: F401

__all__ = ["create", "for_devices", "DistKVStore", "KVStore", "KVStoreBase", "TestStore"]
