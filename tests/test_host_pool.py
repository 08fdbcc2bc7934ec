"""The host pool: with hybridlab imported, a freed multi-MB NumPy buffer goes back to the heap
(reused by the next allocation) instead of being unmapped; HYBRIDLAB_HOST_POOL=0 keeps glibc's
defaults. Checked in fresh interpreters through glibc's own counters (mallinfo2)."""
import ctypes
import json
import os
import subprocess
import sys

import pytest

KERNEL_LIB = os.path.join(os.path.dirname(__file__), "..", "kernel_lib")

PROBE = r"""
import ctypes, json
import numpy as np
import hybridlab as mx

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
before = libc.mallinfo2().hblks
a = np.ones(1 << 20)          # 8 MiB: above glibc's default mmap threshold
during = libc.mallinfo2().hblks
del a
print(json.dumps({"state": mx.host_pool.state(), "mmapped_by_alloc": during - before}))
"""


def _has_mallinfo2():
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version
        libc.mallinfo2
        return sys.platform.startswith("linux")
    except (OSError, AttributeError):
        return False


pytestmark = pytest.mark.skipif(not _has_mallinfo2(), reason="needs glibc >= 2.33 (mallinfo2) on Linux")


def _probe(pool):
    env = dict(os.environ, PYTHONPATH=KERNEL_LIB, HYBRIDLAB_HOST_POOL=pool)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_large_buffers_come_from_the_heap_with_the_pool():
    got = _probe("1")
    assert got == {"state": "enabled", "mmapped_by_alloc": 0}


def test_env_switch_keeps_glibc_defaults():
    got = _probe("0")
    assert got == {"state": "disabled by HYBRIDLAB_HOST_POOL=0", "mmapped_by_alloc": 1}
