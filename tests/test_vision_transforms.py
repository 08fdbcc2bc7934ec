"""gluon.data.vision.transforms: deterministic ones against NumPy and MXNet 1.9.1 values (recorded),
random ones for shapes, dtypes, ranges and seeding; a DataLoader over a synthetic FashionMNIST."""
import gzip
import struct

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import Block, HybridBlock, nn
from hybridlab.gluon.data.vision import FashionMNIST, _color, transforms as T

IMG = np.random.RandomState(0).randint(0, 256, (4, 5, 3)).astype("uint8")
# mx.nd.image.random_<op>(IMG, min_factor=0.5, max_factor=0.5) in MXNet 1.9.1, first 12 values
MXNET_AT_HALF = {
    "brightness": [86, 23, 58, 96, 33, 125, 97, 51, 4, 105, 10, 121],
    "contrast": [147, 84, 119, 157, 94, 186, 158, 112, 65, 166, 71, 182],
    "saturation": [92, 30, 65, 110, 47, 139, 98, 52, 5, 119, 24, 134],
    "hue": [46, 172, 102, 125, 250, 67, 8, 100, 195, 51, 242, 20],
}


def u8(a):
    return mx.nd.array(a, dtype="uint8")


@pytest.mark.parametrize("name", sorted(MXNET_AT_HALF))
def test_color_kernels_match_mxnet(name):
    out = getattr(_color, name)(IMG, 0.5)
    assert out.dtype == np.uint8 and out.ravel()[:12].tolist() == MXNET_AT_HALF[name]


def test_color_kernels_saturate_and_lighting():
    x = np.array([[[200, 10, 100], [250, 3, 0]]], dtype=np.uint8)
    assert _color.brightness(x, 1.5).tolist() == [[[255, 15, 150], [255, 4, 0]]]       # MXNet 1.9.1
    assert _color.contrast(x, 2).tolist() == [[[255, 0, 123], [255, 0, 0]]]
    assert _color.saturation(x, 2).tolist() == [[[255, 8, 188], [255, 6, 0]]]
    assert _color.lighting(x, (-1, 0, 0)).tolist() == [[[231, 42, 132], [255, 35, 32]]]
    f = np.array([[[1.0], [3.0]]], dtype=np.float32)
    assert _color.contrast(f, 0.5).ravel().tolist() == [1.5, 2.5]                       # one channel: plain mean
    assert np.abs(_color.hue(IMG, 1.0).astype(int) - IMG).max() <= 1                  # a full turn


def test_resize_and_crops():
    x = u8(IMG)
    assert T.Resize((3, 2))(x).asnumpy().ravel()[:6].tolist() == [171, 88, 166, 117, 95, 92]   # OpenCV bilinear
    z = mx.nd.zeros((10, 7, 3), dtype="uint8")
    assert T.Resize(4, keep_ratio=True)(z).shape == (5, 4, 3)          # MXNet: short edge 4, 10 * 4 / 7 -> 5
    assert T.Resize(4)(z).shape == (4, 4, 3)
    assert T.Resize((4, 6), keep_ratio=True)(z).shape == (6, 4, 3)
    assert T.Resize(4, keep_ratio=True)(mx.nd.zeros((5, 13, 3))).shape == (4, 10, 3)
    assert T.Resize((3, 2))(mx.nd.zeros((2, 10, 7, 3), dtype="uint8")).shape == (2, 2, 3, 3)
    assert T.Resize(4)(mx.nd.zeros((10, 7, 3))).dtype == np.float32
    np.testing.assert_array_equal(T.Resize((7, 6), interpolation=0)(x).asnumpy(),
                                  IMG[[0, 0, 1, 2, 2, 3]][:, [0, 0, 1, 2, 2, 3, 4]])
    np.testing.assert_array_equal(T.CropResize(1, 2, 3, 2)(x).asnumpy(), IMG[2:4, 1:4])
    assert T.CropResize(1, 2, 3, 4)(mx.nd.zeros((2, 10, 7, 3))).shape == (2, 4, 3, 3)
    assert T.CropResize(1, 2, 3, 4, size=5)(z).shape == (5, 5, 3)
    with pytest.raises(mx.MXNetError, match="width=30.*inside the image of width 7"):
        T.CropResize(1, 2, 30, 4)(z)
    assert T.CenterCrop(4)(z).shape == (4, 4, 3)
    np.testing.assert_array_equal(T.CenterCrop((3, 2))(x).asnumpy(), IMG[1:3, 1:4])
    assert T.RandomResizedCrop((6, 5))(z).shape == (5, 6, 3)


def test_block_kinds_as_mxnet():
    hybrid = [T.Resize, T.CropResize, T.RandomFlipLeftRight, T.RandomFlipTopBottom, T.RandomBrightness,
              T.RandomContrast, T.RandomSaturation, T.RandomHue, T.RandomColorJitter, T.RandomLighting, T.Cast,
              T.ToTensor, T.Normalize]
    assert all(issubclass(c, HybridBlock) for c in hybrid)
    assert not any(issubclass(c, HybridBlock) for c in (T.CenterCrop, T.RandomResizedCrop, T.Rotate, T.RandomRotation))
    assert issubclass(T.Compose, nn.Sequential) and issubclass(T.RandomApply, nn.Sequential)
    c = T.Compose([T.Resize(4), T.ToTensor(), T.CenterCrop(2), T.Cast()])
    kinds = [type(b).__name__ for b in c._children.values()]
    assert kinds == ["HybridSequential", "CenterCrop", "Cast"]


def test_hybridize_totensor_normalize_and_clear_error_for_numpy_transforms():
    net = nn.HybridSequential()
    net.add(T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), (1.0, 2.0, 4.0)))
    x = u8(IMG)
    ref = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-6)
    expect = (IMG.transpose(2, 0, 1) / 255.0 - np.array([0.1, 0.2, 0.3]).reshape(3, 1, 1)) / \
        np.array([1.0, 2.0, 4.0]).reshape(3, 1, 1)
    np.testing.assert_allclose(ref, expect, rtol=1e-5)
    bad = nn.HybridSequential()
    bad.add(T.Resize(3))
    bad.hybridize()
    with pytest.raises(mx.MXNetError, match="Resize cannot be hybridized"):
        bad(x)


def test_random_flips_and_seed():
    x = u8(IMG)
    mx.random.seed(3)
    a = [T.RandomFlipLeftRight()(x).asnumpy() for _ in range(16)]
    mx.random.seed(3)
    b = [T.RandomFlipLeftRight()(x).asnumpy() for _ in range(16)]
    assert all((p == q).all() for p, q in zip(a, b))
    flipped = sum((o == IMG[:, ::-1]).all() for o in a)
    assert 0 < flipped < 16 and all((o == IMG).all() or (o == IMG[:, ::-1]).all() for o in a)
    tb = [T.RandomFlipTopBottom()(x).asnumpy() for _ in range(16)]
    assert all((o == IMG).all() or (o == IMG[::-1]).all() for o in tb)
    with pytest.raises(mx.MXNetError, match=r"\(height, width, channels\), got \(2, 4, 5, 3\)"):
        T.RandomFlipLeftRight()(u8(np.stack([IMG, IMG])))


@pytest.mark.parametrize("t", [T.RandomBrightness(0.3), T.RandomContrast(0.3), T.RandomSaturation(0.3),
                               T.RandomHue(0.3), T.RandomColorJitter(0.2, 0.2, 0.2, 0.1), T.RandomLighting(0.1)])
def test_random_color_shapes_dtypes_ranges(t):
    x = u8(IMG)
    for _ in range(3):
        out = t(x)
        assert out.shape == (4, 5, 3) and out.dtype == np.uint8
    f = t(mx.nd.array(IMG / 255.0))
    assert f.dtype == np.float32 and np.isfinite(f.asnumpy()).all()


def test_random_brightness_range():
    x = mx.nd.full((2, 2, 3), 100, dtype="uint8")
    vals = {int(T.RandomBrightness(0.5)(x).asnumpy()[0, 0, 0]) for _ in range(30)}
    assert min(vals) >= 50 and max(vals) <= 150 and len(vals) > 5


def test_random_apply_and_rotation():
    x = u8(IMG)
    assert T.RandomApply(T.Cast("float16"), p=0.0)(x).dtype == np.uint8
    assert T.RandomApply(T.Cast("float16"), p=1.0)(x).dtype == np.float16
    chw = T.ToTensor()(x)
    np.testing.assert_allclose(T.Rotate(180)(chw).asnumpy(), chw.asnumpy()[:, ::-1, ::-1], atol=1e-5)
    np.random.seed(0)
    assert T.RandomRotation((-20, 20))(chw).shape == (3, 4, 5)
    assert T.RandomRotation((-20, 20))(mx.nd.ones((2, 3, 4, 5))).shape == (2, 3, 4, 5)
    with pytest.raises(TypeError, match="only supports float32, got uint8"):
        T.Rotate(10)(x)
    with pytest.raises(ValueError, match="ordered tuple"):
        T.RandomRotation((20, -20))


def write_fashion_mnist(root, n=10):
    rs = np.random.RandomState(1)
    imgs, labels = rs.randint(0, 256, (n, 28, 28)).astype(np.uint8), (np.arange(n) % 10).astype(np.uint8)
    with gzip.open(root / "train-images-idx3-ubyte.gz", "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + imgs.tobytes())
    with gzip.open(root / "train-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labels.tobytes())
    return imgs, labels


def test_dataloader_over_synthetic_fashion_mnist(tmp_path, monkeypatch):
    imgs, labels = write_fashion_mnist(tmp_path)
    monkeypatch.setattr(FashionMNIST, "_train_data", ("train-images-idx3-ubyte.gz", None))
    monkeypatch.setattr(FashionMNIST, "_train_label", ("train-labels-idx1-ubyte.gz", None))
    ds = FashionMNIST(root=str(tmp_path), train=True)
    t = T.Compose([T.Resize(32), T.ToTensor(), T.Normalize(0.286, 0.353)])
    loader = mx.gluon.data.DataLoader(ds.transform_first(t), batch_size=4, shuffle=False, last_batch="keep")
    batches = list(loader)
    assert [b[0].shape for b in batches] == [(4, 1, 32, 32), (4, 1, 32, 32), (2, 1, 32, 32)]
    x, y = batches[0]
    assert x.dtype == np.float32 and y.asnumpy().tolist() == labels[:4].tolist()
    ref = (mx.image.imresize(mx.nd.array(imgs[0][:, :, None], dtype="uint8"), 32, 32).asnumpy()[:, :, 0]
           / 255.0 - 0.286) / 0.353
    np.testing.assert_allclose(x.asnumpy()[0, 0], ref, rtol=1e-5, atol=1e-5)
