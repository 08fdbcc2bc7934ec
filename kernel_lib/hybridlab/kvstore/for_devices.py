"""``for_devices``: the store data-parallel training uses, chosen as MXNet's ``model._create_kvstore``
(the one rule for ``gluon.Trainer`` and ``Module``)."""
import os

from .base import KVStoreBase, create

__all__ = ["for_devices"]

_LARGE = 1024 * 1024 * 16     # MXNet: a 'local' store keeps updates off the store above this many elements


def for_devices(kvstore, num_device, shapes):
    """``(store or None, update_on_kvstore)`` for ``num_device`` devices holding weights of
    ``shapes``: a name makes a store only for several devices (or a 'dist' type); updates run on
    the store unless ``MXNET_UPDATE_ON_KVSTORE=0``, the store cannot run an optimizer, or, for
    'local', a weight has more than 16M elements.

    >>> for_devices('local', 1, [(2,)])
    (None, False)
    >>> kv, on_kv = for_devices('local', 2, [(2,)])
    >>> kv.type, on_kv
    ('local', True)
    """
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kv = None                      # one device, one machine: nothing to aggregate
        else:
            kv = create(kvstore)
            if kvstore == "local" and max((_size(s) for s in shapes), default=0) > _LARGE:
                update_on_kvstore = False
    else:
        raise TypeError(f"kvstore must be KVStore, str or None, got {type(kvstore).__name__}")
    if kv is None:
        return None, False
    return kv, update_on_kvstore and kv.is_capable(KVStoreBase.OPTIMIZER)


def _size(shape):
    n = 1
    for d in shape or ():
        n *= max(int(d), 0)
    return n
