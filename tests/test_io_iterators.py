"""mx.io's MNISTIter, ResizeIter and PrefetchingIter as MXNet 1.9.1 gives them (values recorded from
MXNet 1.9.1 on the same files)."""
import struct

import numpy as np
import pytest

import hybridlab as mx


@pytest.fixture
def mnist(tmp_path):
    """10 random 4x3 images labelled 0..9, and 1000 blank 1x1 images labelled i % 256."""
    rs = np.random.RandomState(0)
    imgs = rs.randint(0, 256, (10, 4, 3)).astype(np.uint8)
    (tmp_path / "img").write_bytes(struct.pack(">IIII", 2051, 10, 4, 3) + imgs.tobytes())
    (tmp_path / "lbl").write_bytes(struct.pack(">II", 2049, 10) + bytes(range(10)))
    (tmp_path / "img2").write_bytes(struct.pack(">IIII", 2051, 1000, 1, 1) + bytes(1000))
    (tmp_path / "lbl2").write_bytes(struct.pack(">II", 2049, 1000) + bytes(i % 256 for i in range(1000)))
    return tmp_path


def _labels(it):
    return [b.label[0].asnumpy().tolist() for b in it]


def test_mnist_iter_batches_scaling_and_parts_as_mxnet(mnist):
    it = mx.io.MNISTIter(image=str(mnist / "img"), label=str(mnist / "lbl"), batch_size=3, shuffle=False,
                         silent=True)
    assert [(d.name, d.shape) for d in it.provide_data] == [("data", (3, 1, 4, 3))]
    assert [(d.name, d.shape) for d in it.provide_label] == [("softmax_label", (3,))]
    batches = list(it)
    assert _labels(batches) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]       # the partial last batch is not read
    assert batches[1].data[0].asnumpy()[0, 0, 0].tolist() == [0.9921875, 0.30859375, 0.68359375]   # pixel / 256
    it.reset()
    assert len(list(it)) == 3
    part = mx.io.MNISTIter(image=str(mnist / "img"), label=str(mnist / "lbl"), batch_size=2, shuffle=False,
                           flat=True, num_parts=3, part_index=1, silent=True)
    assert part.provide_data[0].shape == (2, 12) and _labels(part) == [[3.0, 4.0]]     # samples [3, 6)


@pytest.mark.parametrize("seed, order", [(0, [0, 2, 3, 5, 9, 1, 6, 8, 4, 7]), (1, [6, 9, 7, 2, 4, 1, 5, 3, 8, 0]),
                                         (7, [2, 4, 5, 3, 8, 7, 6, 1, 0, 9])])
def test_mnist_iter_shuffles_in_mxnets_order(mnist, seed, order):
    it = mx.io.MNISTIter(image=str(mnist / "img"), label=str(mnist / "lbl"), batch_size=10, seed=seed, silent=True)
    assert _labels(it) == [order]


def test_mnist_iter_shuffle_order_of_a_thousand_samples(mnist):
    it = mx.io.MNISTIter(image=str(mnist / "img2"), label=str(mnist / "lbl2"), batch_size=1000, seed=3, silent=True)
    assert _labels(it)[0][:20] == [218, 119, 233, 144, 203, 180, 150, 100, 118, 234, 253, 239, 32, 125, 209, 3, 229,
                                   117, 23, 213]


def test_mnist_iter_refuses_broken_files_naming_them(mnist):
    (mnist / "bad").write_bytes(struct.pack(">IIII", 2051, 99, 4, 3) + bytes(12))
    with pytest.raises(mx.MXNetError, match="image .*bad.*announces 99 samples of 12 bytes"):
        mx.io.MNISTIter(image=str(mnist / "bad"), label=str(mnist / "lbl"), silent=True)
    with pytest.raises(mx.MXNetError, match="expected the idx magic number 2049, got 2051"):
        mx.io.MNISTIter(image=str(mnist / "img"), label=str(mnist / "img"), silent=True)
    with pytest.raises(mx.MXNetError, match="0 <= part_index < num_parts"):
        mx.io.MNISTIter(image=str(mnist / "img"), label=str(mnist / "lbl"), num_parts=2, part_index=2)


def test_resize_iter_cuts_and_stretches_epochs():
    inner = mx.io.NDArrayIter(np.arange(12).reshape(6, 2), np.arange(6), batch_size=2)   # 3 batches
    it = mx.io.ResizeIter(inner, 5)
    assert [b.label[0].asnumpy().tolist() for b in it] == [[0, 1], [2, 3], [4, 5], [0, 1], [2, 3]]
    it.reset()
    assert len(list(it)) == 5 and it.provide_data == inner.provide_data
    keep = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(6), batch_size=2), 2, reset_internal=False)
    first, second = [b.data[0].asnumpy().tolist() for b in keep], None
    keep.reset()
    second = [b.data[0].asnumpy().tolist() for b in keep]
    assert first == [[0, 1], [2, 3]] and second == [[4, 5], [0, 1]]


def test_prefetching_iter_joins_renames_and_resets():
    a = mx.io.NDArrayIter({"data": np.arange(8).reshape(4, 2)}, {"label": np.arange(4)}, batch_size=2)
    b = mx.io.NDArrayIter({"data": -np.arange(4).reshape(4, 1)}, batch_size=2)
    it = mx.io.PrefetchingIter([a, b], rename_data=[{"data": "x"}, {"data": "y"}])
    assert [(d.name, d.shape) for d in it.provide_data] == [("x", (2, 2)), ("y", (2, 1))]
    assert [d.name for d in it.provide_label] == ["label"]
    got = [([d.asnumpy().tolist() for d in batch.data], batch.label[0].asnumpy().tolist()) for batch in it]
    assert got == [([[[0, 1], [2, 3]], [[0], [-1]]], [0, 1]), ([[[4, 5], [6, 7]], [[-2], [-3]]], [2, 3])]
    it.reset()
    assert len(list(it)) == 2


def test_prefetching_iter_passes_on_an_inner_error():
    class Broken(mx.io.NDArrayIter):
        def next(self):
            raise ValueError("disk gone")
    it = mx.io.PrefetchingIter(Broken(np.zeros((4, 1)), batch_size=2))
    with pytest.raises(ValueError, match="disk gone"):
        next(iter(it))
