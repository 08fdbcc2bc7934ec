"""gluon.data: datasets and transforms, samplers and last_batch modes, DataLoader (batch_size,
shuffle, sampler, batch_sampler, batchify_fn, worker processes, a crashing worker), vision transforms."""
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import data as gdata
from hybridlab.gluon.data.vision import transforms


def _ds(n=10):
    return gdata.ArrayDataset(np.arange(n * 2, dtype="float32").reshape(n, 2), np.arange(n))


def test_datasets_and_transforms():
    ds = _ds(4)
    x, y = ds[1]
    assert x.tolist() == [2.0, 3.0] and y == 1 and len(ds) == 4
    assert gdata.ArrayDataset(mx.nd.arange(3))[2] == 2.0
    first = ds.transform_first(lambda v: v * 10)
    assert first[1][0].tolist() == [20.0, 30.0] and first[1][1] == 1
    both = ds.transform(lambda a, b: (a.sum(), b + 1), lazy=False)
    assert isinstance(both, gdata.SimpleDataset) and both[3] == (13.0, 4)
    assert len(ds.filter(lambda s: s[1] % 2 == 0)) == 2 and len(ds.take(3)) == 3
    assert [s[1] for s in gdata.SimpleDataset(list(zip(range(7), range(7)))).shard(3, 0)] == [0, 1, 2]
    with pytest.raises(ValueError, match="same length"):
        gdata.ArrayDataset(np.zeros(3), np.zeros(4))


def test_samplers_and_last_batch():
    seq = gdata.SequentialSampler(7)
    assert [len(b) for b in gdata.BatchSampler(seq, 3, "keep")] == [3, 3, 1]
    assert [len(b) for b in gdata.BatchSampler(seq, 3, "discard")] == [3, 3]
    roll = gdata.BatchSampler(seq, 3, "rollover")
    assert list(roll) == [[0, 1, 2], [3, 4, 5]]
    assert list(roll)[0] == [6, 0, 1]
    np.random.seed(0)
    perm = list(gdata.RandomSampler(20))
    assert sorted(perm) == list(range(20)) and perm != list(range(20))
    assert list(gdata.IntervalSampler(5, 2)) == [0, 2, 4, 1, 3]
    with pytest.raises(ValueError, match="last_batch"):
        gdata.BatchSampler(seq, 2, "drop")


def test_dataloader_batches_shuffle_sampler_batchify():
    ds = _ds(10)
    batches = list(gdata.DataLoader(ds, batch_size=4))
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert isinstance(batches[0][0], mx.nd.NDArray) and batches[2][1].asnumpy().tolist() == [8, 9]
    assert len(gdata.DataLoader(ds, batch_size=4, last_batch="discard")) == 2
    np.random.seed(1)
    labels = np.concatenate([y.asnumpy() for _, y in gdata.DataLoader(ds, batch_size=3, shuffle=True)])
    assert sorted(labels.tolist()) == list(range(10)) and labels.tolist() != list(range(10))
    loader = gdata.DataLoader(ds, batch_size=2, sampler=gdata.IntervalSampler(10, 5))
    assert [y.asnumpy().tolist() for _, y in loader][0] == [0, 5]
    bs = gdata.BatchSampler(gdata.SequentialSampler(10), 5, "keep")
    assert len(list(gdata.DataLoader(ds, batch_sampler=bs))) == 2
    with pytest.raises(ValueError, match="batch_sampler"):
        gdata.DataLoader(ds, batch_size=2, batch_sampler=bs)
    lists = list(gdata.DataLoader(ds, batch_size=5, batchify_fn=lambda samples: [s[1] for s in samples]))
    assert lists == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


def test_dataloader_workers_match_single_process():
    ds = _ds(23).transform_first(lambda x: x * 2)
    single = [(x.asnumpy(), y.asnumpy()) for x, y in gdata.DataLoader(ds, batch_size=4)]
    loader = gdata.DataLoader(ds, batch_size=4, num_workers=2)
    multi = [(x.asnumpy(), y.asnumpy()) for x, y in loader]
    assert len(single) == len(multi) == 6
    for (a, b), (c, d) in zip(single, multi):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    again = [y.asnumpy() for _, y in loader]           # the pool is reused across epochs
    assert len(again) == 6
    loader.close()


class _Crashing(gdata.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        if idx == 5:
            raise KeyError(f"sample {idx} is corrupt (pid {os.getpid()})")
        return np.float32(idx)


def test_crashing_worker_surfaces_original_exception():
    loader = gdata.DataLoader(_Crashing(), batch_size=2, num_workers=2)
    with pytest.raises(KeyError, match="sample 5 is corrupt") as err:
        list(loader)
    assert f"pid {os.getpid()}" not in str(err.value)        # raised in a worker process, re-raised here
    loader.close()


def test_vision_transforms():
    img = mx.nd.array(np.arange(12).reshape(2, 2, 3), dtype="uint8")
    t = transforms.ToTensor()(img)
    assert t.shape == (3, 2, 2) and t.dtype == np.float32
    np.testing.assert_allclose(t.asnumpy(), np.arange(12).reshape(2, 2, 3).transpose(2, 0, 1) / 255.0, rtol=1e-6)
    norm = transforms.Normalize(mean=(0.1, 0.2, 0.3), std=(1.0, 2.0, 4.0))(t)
    ref = (t.asnumpy() - np.array([0.1, 0.2, 0.3]).reshape(3, 1, 1)) / np.array([1.0, 2.0, 4.0]).reshape(3, 1, 1)
    np.testing.assert_allclose(norm.asnumpy(), ref, rtol=1e-6)
    batch = transforms.Compose([transforms.Cast("float32"), transforms.ToTensor()])(mx.nd.ones((4, 5, 5, 3)))
    assert batch.shape == (4, 3, 5, 5)
    with pytest.raises(mx.base.MXNetError, match="one per channel"):
        transforms.Normalize(mean=(0.1, 0.2))(t)


def test_a_worker_loader_left_early_and_dropped_releases_its_pool():
    # batches still in flight when the loader is dropped used to deadlock Pool.terminate (MXNet's
    # test_multi_worker_dataloader_release_pool); run apart, so a hang fails instead of stalling
    import subprocess
    import sys
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import numpy as np, hybridlab as mx\n"
            "for _ in range(5):\n"
            "    loader = mx.gluon.data.DataLoader(np.random.rand(999, 2000), batch_size=8, num_workers=8)\n"
            "    batches = iter(loader); next(batches); del batches; del loader\n"
            "print('released')\n")
    kernel_lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib")
    done = subprocess.run([sys.executable, "-c", code, kernel_lib], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and done.stdout.strip() == "released", done.stderr[-2000:]


class _Full(gdata.Dataset):
    """MXNet's test_multi_worker dataset: sample ``i`` is ``nd.full((10,), i)``; records fetches."""

    def __init__(self):
        import threading
        self.fetched = threading.Event()

    def __len__(self):
        return 12

    def __getitem__(self, idx):
        self.fetched.set()
        return mx.nd.full((10,), idx)


@pytest.mark.parametrize("thread_pool", [True, False])
@pytest.mark.parametrize("auto_reload", [True, False])
def test_dataloader_thread_pool_and_auto_reload(thread_pool, auto_reload):
    # MXNet 1.9.1 accepts auto_reload (default False) and thread_pool; every pass sees every batch
    loader = gdata.DataLoader(_Full(), batch_size=1, num_workers=3, thread_pool=thread_pool,
                              auto_reload=auto_reload)
    for _ in range(2):
        batches = [b.asnumpy() for b in loader]
        assert len(batches) == 12 and all((b == i).all() for i, b in enumerate(batches))
    loader.close()


def test_dataloader_auto_reload_prefetches_when_made():
    ds = _Full()
    loader = gdata.DataLoader(ds, batch_size=2, num_workers=1, thread_pool=True, auto_reload=True)
    assert ds.fetched.wait(10)           # the first batches are fetched before iteration starts
    assert [b[:, 0].asnumpy().tolist() for b in loader][:2] == [[0.0, 1.0], [2.0, 3.0]]
    loader.close()


def test_dataloader_pin_memory_device():
    # MXNet: pin_memory=True returns batches on cpu_pinned(pin_device_id); without it, on cpu(0)
    ds = gdata.ArrayDataset(np.random.uniform(size=(10, 20)))
    assert {str(x.context) for x in gdata.DataLoader(ds, 8)} == {"cpu(0)"}
    pinned = list(gdata.DataLoader(ds, 8, pin_memory=True))
    assert [x.shape for x in pinned] == [(8, 20), (2, 20)]
    assert all(x.context == mx.cpu_pinned(0) for x in pinned)
    pairs = gdata.DataLoader(gdata.ArrayDataset(np.zeros((3, 2)), np.arange(3)), 2, pin_memory=True,
                             num_workers=2)
    assert all(x.context == y.context == mx.cpu_pinned(0) for x, y in pairs)
    pairs.close()
    with pytest.raises(ValueError, match="timeout"):
        gdata.DataLoader(ds, 8, timeout=0)
