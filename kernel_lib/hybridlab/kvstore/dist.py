"""``DistKVStore``: MXNet's synchronous distributed stores ('dist_sync', 'dist_device_sync', 'dist')
on MPI: every worker is one MPI process (``python -m hybridlab.launch -n 2 script.py`` starts them
with Open MPI's ``mpirun``), and what MXNet's parameter servers do is a collective here:

* ``init``: worker 0's value is every worker's (MXNet: worker 0 initialises the servers), a
  broadcast from rank 0;
* ``push``: each worker sums its devices' values, then the sums are added over the workers (an
  MPI allreduce); with an updater (``set_optimizer``: update_on_kvstore) every worker applies the
  same update to the same held value, which is what MXNet's servers compute once;
* ``pull``: the held value, the same on every worker;
* ``rank`` / ``num_workers``: the MPI world's; ``barrier``: an MPI barrier.

When every worker's values are on a GPU, the allreduce is NCCL's ring through CuPy
(``kvstore/nccl.py``) on the device memory itself; otherwise values go through the host.

A process not started by ``mpirun`` is a world of one worker. 'dist_async' is refused: an
asynchronous store needs parameter servers, which hybridlab does not run. When a worker dies,
``mpirun`` stops the others (Open MPI's default), so no worker waits forever in a collective.

Example (one process: a world of one)::

    >>> import hybridlab as mx
    >>> kv = mx.kv.create('dist_sync')         # doctest: +SKIP
    >>> kv.rank, kv.num_workers                # doctest: +SKIP
    (0, 1)
"""
import numpy as np

from ..base import MXNetError
from ..write_versions import wrote
from .kvstore import KVStore
from .nccl import NcclRing

__all__ = ["DistKVStore", "mpi_world"]

SYNC_TYPES = ("dist_sync", "dist_device_sync", "dist_sync_device", "dist")


def mpi_world():
    """The MPI world communicator (``mpi4py``); an MXNetError saying how to install it if missing."""
    try:
        from mpi4py import MPI
    except ImportError as err:
        raise MXNetError("distributed kvstores run on MPI: expected the mpi4py package and an MPI library "
                         "(pip install mpi4py; Debian: apt-get install openmpi-bin libopenmpi-dev), got "
                         f"ImportError: {err}") from err
    return MPI.COMM_WORLD


def _reducible(a):
    """A contiguous host buffer MPI can sum (MPI has no float16: such values travel as float32)."""
    host = np.ascontiguousarray(a)
    return host.astype(np.float32) if host.dtype == np.float16 else host


class DistKVStore(KVStore):
    """A synchronous store shared by the workers of an MPI world (made by ``mx.kv.create``)."""

    def __init__(self, name="dist_sync"):
        if name not in SYNC_TYPES:
            raise MXNetError(f"kvstore {name!r}: expected one of {', '.join(SYNC_TYPES)} for a synchronous "
                             "distributed store")
        super().__init__(name)
        self._comm = mpi_world()
        self._ring = None          # the NCCL ring; False once the workers agreed on the MPI path

    def __repr__(self):
        return (f"DistKVStore(type={self._type!r}, rank {self.rank} of {self.num_workers}, "
                f"{len(self._store)} keys)")

    @property
    def rank(self):
        """This worker's index in the MPI world (0 .. num_workers - 1)."""
        return self._comm.Get_rank()

    @property
    def num_workers(self):
        """How many workers (MPI processes) share the store."""
        return self._comm.Get_size()

    def _barrier(self):
        """Wait until every worker reaches the barrier."""
        self._comm.Barrier()

    barrier = _barrier

    def init(self, key, value):
        """As ``KVStore.init``, then every worker holds worker 0's values."""
        super().init(key, value)
        keys = key if isinstance(key, (list, tuple)) else [key]
        for k in keys:
            held = self._store[k]
            buf = np.ascontiguousarray(held.asnumpy())
            self._comm.Bcast(buf.view(np.uint8), root=0)     # as bytes: any dtype (MPI has no float16)
            held._data[...] = held.device.put(buf)
            wrote(held)

    def _combine(self, key, total, held):
        """The sum over the workers of each worker's device sum ``total`` (an MPI allreduce, or
        NCCL's when every worker is on a GPU)."""
        if self._ring is None:      # collective: every worker's first push decides, for all of them
            self._ring = NcclRing.agree(self._comm, held.device.is_gpu) or False
        if held.device.is_gpu and self._ring:
            return self._ring.allreduce(total)
        host = _reducible(held.device.xp.asnumpy(total) if held.device.is_gpu else total)
        from mpi4py import MPI
        self._comm.Allreduce(MPI.IN_PLACE, host, op=MPI.SUM)
        return held.device.put(host.astype(total.dtype, copy=False))
