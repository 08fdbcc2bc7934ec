"""Data parallel over processes: 'dist_sync' kvstores on MPI, workers started by
``python -m hybridlab.launch -n 2`` (real ``mpirun`` processes on loopback, as in a cluster).

Both workers end with the same weights, equal to one process training on the doubled batch; a
worker killed mid-run makes ``mpirun`` stop the other, and the launcher exits with an error
instead of hanging.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import hybridlab as mx

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_scripts", "train.py")

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None,
                                reason="Open MPI's mpirun is not installed (make test installs openmpi-bin)")


def _launch(*args, timeout=240):
    return subprocess.run([sys.executable, "-m", "hybridlab.launch", "-n", "2", "--timeout", str(timeout - 60),
                           SCRIPT, *args], capture_output=True, text=True, timeout=timeout)


def _reference(mode, out):
    subprocess.run([sys.executable, SCRIPT, "--mode", mode, "--kvstore", "device", "--out", out], check=True,
                   capture_output=True, timeout=120)
    return np.load(os.path.join(out, f"{mode}_rank0.npz"))


@pytest.mark.parametrize("mode", ["gluon", "module"])
def test_two_workers_end_with_the_weights_of_one_process_on_the_doubled_batch(mode, tmp_path):
    run = _launch("--mode", mode, "--out", str(tmp_path / "dist"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "rank 0 of 2: done" in run.stdout and "rank 1 of 2: done" in run.stdout
    ranks = [np.load(tmp_path / "dist" / f"{mode}_rank{r}.npz") for r in (0, 1)]
    ref = _reference(mode, str(tmp_path / "ref"))
    assert sorted(ranks[0].files) == sorted(ref.files)
    for name in ref.files:
        assert np.array_equal(ranks[0][name], ranks[1][name]), name          # identical on both workers
        np.testing.assert_allclose(ranks[0][name], ref[name], rtol=1e-6, atol=1e-6, err_msg=name)
        assert not np.allclose(ranks[0][name], 0)


@pytest.mark.skipif(mx.num_gpus() < 2, reason="NCCL needs a GPU per worker: two workers need 2 CUDA devices")
@pytest.mark.parametrize("mode", ["gluon", "module"])
def test_two_gpu_workers_reduce_over_nccl_to_the_weights_of_one_process(mode, tmp_path):
    run = _launch("--mode", mode, "--kvstore", "dist_device_sync", "--gpu", "--out", str(tmp_path / "dist"))
    assert run.returncode == 0, run.stdout + run.stderr
    ranks = [np.load(tmp_path / "dist" / f"{mode}_rank{r}.npz") for r in (0, 1)]
    ref = _reference(mode, str(tmp_path / "ref"))
    for name in ref.files:
        assert np.array_equal(ranks[0][name], ranks[1][name]), name
        np.testing.assert_allclose(ranks[0][name], ref[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_a_killed_worker_stops_the_run_with_an_error_instead_of_a_hang(tmp_path):
    run = _launch("--mode", "gluon", "--out", str(tmp_path), "--kill-rank", "1", "--kill-after", "2")
    assert run.returncode != 0
    assert "rank 1" in run.stderr and "signal 9" in run.stderr
    assert "hybridlab.launch: the run failed" in run.stderr
    assert not os.path.exists(tmp_path / "gluon_rank0.npz")     # the survivor never finished training


def test_dist_store_in_one_process_is_a_world_of_one_and_async_is_refused():
    kv = mx.kv.create("dist_sync")
    assert (kv.type, kv.rank, kv.num_workers) == ("dist_sync", 0, 1)
    kv.init("w", mx.nd.ones((2,)))
    kv.push("w", [mx.nd.ones((2,)), mx.nd.ones((2,)) * 2])
    out = mx.nd.zeros((2,))
    kv.pull("w", out=out)
    assert out.asnumpy().tolist() == [3.0, 3.0]
    with pytest.raises(mx.MXNetError, match="asynchronous updates need parameter servers"):
        mx.kv.create("dist_async")


def test_launch_command_for_a_cluster_uses_the_hostfile():
    from hybridlab.launch import command
    cmd = command("train.py", 8, hostfile="hosts", timeout=600, python="python3", mpirun="mpirun", root=True)
    assert cmd[:5] == ["mpirun", "-n", "8", "--hostfile", "hosts"]
    assert "--oversubscribe" not in cmd and cmd[-3:] == ["python3", "-u", "train.py"]
    assert ["--timeout", "600"] == cmd[cmd.index("--timeout"):cmd.index("--timeout") + 2]
    assert "--allow-run-as-root" in cmd
    with pytest.raises(ValueError, match="number of workers >= 1"):
        command("train.py", 0, mpirun="mpirun")


def test_workers_on_the_cpu_agree_on_the_mpi_path_at_the_first_push(monkeypatch):
    from hybridlab.kvstore.nccl import nccl_available
    kv = mx.kv.create("dist_device_sync")
    kv.init(0, mx.nd.zeros((3,)))
    assert kv._ring is None
    kv.push(0, mx.nd.ones((3,)))
    assert kv._ring is False                       # agreed once: values travel through MPI
    monkeypatch.setenv("HYBRIDLAB_NCCL", "0")
    assert not nccl_available()


@pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed for NCCL)")
def test_gpu_values_are_summed_by_the_nccl_ring():
    from hybridlab.kvstore.nccl import NcclRing, nccl_available
    if not nccl_available():
        pytest.skip("CuPy's NCCL binding does not load here")
    kv = mx.kv.create("dist_device_sync")
    kv.init("w", mx.nd.zeros((2, 3), ctx=mx.gpu(0)))
    for dtype in ("float32", "float16"):
        grads = [mx.nd.ones((2, 3), ctx=mx.gpu(0), dtype=dtype) * 2]
        kv.pushpull("w", grads)
        assert grads[0].asnumpy().tolist() == [[2.0] * 3] * 2
    assert isinstance(kv._ring, NcclRing)          # a world of one GPU worker: NCCL's ring of one
