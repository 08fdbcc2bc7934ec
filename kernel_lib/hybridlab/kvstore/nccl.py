"""GPU allreduce for the distributed kvstores: NCCL's ring through CuPy (``cupy.cuda.nccl``), used
when every worker holds its values on a GPU, instead of copying them to the host for MPI.

The communicator is made once per store, collectively: worker 0 makes NCCL's unique id and MPI
broadcasts it (as bytes) to the others; each worker then joins with its rank on its current
CuPy device. Whether every worker is on a GPU is agreed with one small MPI allreduce at the first
push (of every worker, whatever its device), so all workers take the same path: a world where some
worker's first value is on the CPU, or where NCCL does not load, stays on MPI.
``HYBRIDLAB_NCCL=0`` keeps GPU values on the MPI path (host copies).

NCCL refuses two ranks on one GPU: each worker needs its own device (``mpirun`` with one rank per
GPU; select it with ``mx.gpu(rank % num_gpus)``).
"""
import os

import numpy as np

from ..base import MXNetError

__all__ = ["NcclRing", "nccl_available", "NCCL_DTYPES"]

# NumPy dtype name -> the cupy.cuda.nccl constant's name
NCCL_DTYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
               "int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32", "int64": "NCCL_INT64"}


def nccl_available():
    """Whether CuPy's NCCL binding loads here and ``HYBRIDLAB_NCCL`` does not turn it off."""
    if os.environ.get("HYBRIDLAB_NCCL", "1") == "0":
        return False
    try:
        from cupy.cuda import nccl
    except ImportError:
        return False
    return bool(getattr(nccl, "available", True))


class NcclRing:
    """Allreduce (sum) of CuPy arrays over the workers of the MPI communicator ``comm``.

    ``NcclRing.agree(comm, on_gpu)`` is collective: every worker calls it with whether its value is
    on a GPU, and gets a ring if all are (and NCCL loads on each), else None."""

    def __init__(self, comm):
        from cupy.cuda import nccl
        self._nccl = nccl
        uid = np.zeros(128, np.int8)      # NCCL_UNIQUE_ID_BYTES
        if comm.Get_rank() == 0:
            uid[:] = np.array(nccl.get_unique_id(), dtype=np.int64).astype(np.int8)
        comm.Bcast(uid.view(np.uint8), root=0)
        self._comm = nccl.NcclCommunicator(comm.Get_size(), tuple(int(v) for v in uid), comm.Get_rank())

    @classmethod
    def agree(cls, comm, on_gpu):
        """A ring when every worker of ``comm`` has ``on_gpu`` true and NCCL available, else None."""
        mine = np.array([1 if (on_gpu and nccl_available()) else 0], np.int32)
        every = np.empty_like(mine)
        from mpi4py import MPI
        comm.Allreduce(mine, every, op=MPI.MIN)
        return cls(comm) if every[0] == 1 else None

    def allreduce(self, array):
        """Sum ``array`` (a contiguous CuPy array) over the workers, in place; returns it."""
        import cupy
        name = NCCL_DTYPES.get(array.dtype.name)
        if name is None:
            raise MXNetError(f"kvstore: NCCL allreduce: expected one of {sorted(NCCL_DTYPES)}, got dtype "
                             f"{array.dtype.name}")
        if not array.flags.c_contiguous:
            array = cupy.ascontiguousarray(array)
        stream = cupy.cuda.get_current_stream()
        self._comm.allReduce(array.data.ptr, array.data.ptr, array.size, getattr(self._nccl, name),
                             self._nccl.NCCL_SUM, stream.ptr)
        stream.synchronize()
        return array
