"""mx.image: decoding (Pillow), OpenCV-exact nearest/bilinear resizing, crops, rotation. Expected
values were recorded with MXNet 1.9.1 (OpenCV) on the image below."""
import io

import numpy as np
import pytest
from PIL import Image

import hybridlab as mx

IMG = np.random.RandomState(0).randint(0, 256, (4, 5, 3)).astype("uint8")   # np.random.seed(0) in MXNet's run
# mx.image.imresize(IMG, 3, 2) (bilinear) and (7, 6, interp=0) in MXNet 1.9.1
BILINEAR_3x2 = [171, 88, 166, 117, 95, 92, 70, 71, 115, 71, 167, 125, 224, 44, 180, 192, 159, 153]
BILINEAR_3x2_F32 = [171.0, 88.33333, 165.83333, 117.0, 95.0, 91.5, 70.16666, 71.66667, 115.16666, 71.0,
                    166.66666, 125.5, 223.5, 44.0, 180.0, 192.5, 159.33334, 153.0]
NEAREST_ROWS, NEAREST_COLS = [0, 0, 1, 2, 2, 3], [0, 0, 1, 2, 2, 3, 4]


def nd(a, dtype="uint8"):
    return mx.nd.array(a, dtype=dtype)


def test_imresize_matches_opencv():
    assert np.random.RandomState(0).randint(0, 256, 2).tolist() == [172, 47]
    out = mx.image.imresize(nd(IMG), 3, 2)
    assert out.shape == (2, 3, 3) and out.dtype == np.uint8
    assert out.asnumpy().ravel().tolist() == BILINEAR_3x2
    f = mx.image.imresize(nd(IMG, "float32"), 3, 2)
    assert f.dtype == np.float32
    np.testing.assert_allclose(f.asnumpy().ravel(), BILINEAR_3x2_F32, atol=1e-3)
    near = mx.image.imresize(nd(IMG), 7, 6, interp=0).asnumpy()
    np.testing.assert_array_equal(near, IMG[NEAREST_ROWS][:, NEAREST_COLS])


def test_bilinear_upscale_edges_and_identity():
    img = nd(np.array([[[0], [255]]]))
    assert mx.image.imresize(img, 4, 1).asnumpy().ravel().tolist() == [0, 64, 191, 255]
    np.testing.assert_array_equal(mx.image.imresize(nd(IMG), 5, 4).asnumpy(), IMG)
    for interp in (2, 3, 4, 9):   # Pillow filters: shapes and dtype (values are close to OpenCV's, not equal)
        out = mx.image.imresize(nd(IMG), 8, 6, interp=interp)
        assert out.shape == (6, 8, 3) and out.dtype == np.uint8
    with pytest.raises(ValueError, match="Unknown interp method 7"):
        mx.image.imresize(nd(IMG), 8, 6, interp=7)
    with pytest.raises(mx.MXNetError, match=r"positive output size.*\(0, 6\)"):
        mx.image.imresize(nd(IMG), 0, 6)


def png_bytes(arr, mode):
    f = io.BytesIO()
    Image.fromarray(arr, mode=mode).save(f, format="PNG")
    return f.getvalue()


def test_imdecode_imread(tmp_path):
    buf = png_bytes(IMG, "RGB")
    img = mx.image.imdecode(buf)
    assert img.shape == (4, 5, 3) and img.dtype == np.uint8
    np.testing.assert_array_equal(img.asnumpy(), IMG)
    np.testing.assert_array_equal(mx.image.imdecode(buf, to_rgb=False).asnumpy(), IMG[:, :, ::-1])
    np.testing.assert_array_equal(mx.image.imdecode(np.frombuffer(buf, np.uint8)).asnumpy(), IMG)
    gray = mx.image.imdecode(buf, flag=0).asnumpy()
    ref = IMG.astype(float) @ [0.299, 0.587, 0.114]
    assert gray.shape == (4, 5, 1) and np.abs(gray[:, :, 0] - ref).max() <= 1
    path = tmp_path / "a.png"
    path.write_bytes(png_bytes(IMG[:, :, 0], "L"))
    assert mx.image.imread(str(path)).shape == (4, 5, 3)
    np.testing.assert_array_equal(mx.image.imread(str(path), flag=0).asnumpy()[:, :, 0], IMG[:, :, 0])
    with pytest.raises(mx.MXNetError, match="decoding failed.*got 5 bytes"):
        mx.image.imdecode(b"hello")
    with pytest.raises(ValueError, match="bytes, bytearray or numpy.ndarray, got str"):
        mx.image.imdecode("hello")
    with pytest.raises(mx.MXNetError, match="couldn't open file .*missing.png"):
        mx.image.imread(str(tmp_path / "missing.png"))


def test_crops_as_mxnet():
    z = mx.nd.zeros((10, 7, 3), dtype="uint8")
    assert mx.image.resize_short(z, 4).shape == (5, 4, 3)
    out, rect = mx.image.center_crop(z, (4, 5))
    assert out.shape == (5, 4, 3) and rect == (1, 2, 4, 5)
    out, rect = mx.image.center_crop(z, (14, 5))             # MXNet: (5, 14, 3), (0, 4, 7, 2)
    assert out.shape == (5, 14, 3) and rect == (0, 4, 7, 2)
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    np.testing.assert_array_equal(mx.image.fixed_crop(nd(IMG), 1, 2, 3, 2).asnumpy(), IMG[2:4, 1:4])
    out, (x, y, w, h) = mx.image.random_crop(nd(IMG), (3, 2))
    np.testing.assert_array_equal(out.asnumpy(), IMG[y:y + 2, x:x + 3])
    out, (x, y, w, h) = mx.image.random_size_crop(nd(IMG), (2, 2), 0.3, (0.5, 2))
    assert out.shape == (2, 2, 3) and 0 <= x <= 5 - w and 0 <= y <= 4 - h
    norm = mx.image.color_normalize(mx.nd.ones((2, 2, 3)) * 10, mx.nd.array([1, 2, 3]), mx.nd.array([3, 4, 7]))
    assert norm.asnumpy()[0, 0].tolist() == [3.0, 2.0, 1.0]
    with pytest.raises(mx.MXNetError, match=r"expected an image \(H, W, C\), got shape \(2, 10, 7, 3\)"):
        mx.image.center_crop(mx.nd.zeros((2, 10, 7, 3)), (4, 4))


def test_imrotate():
    x = np.arange(12, dtype="float32").reshape(1, 3, 4)
    np.testing.assert_allclose(mx.image.imrotate(mx.nd.array(x), 180).asnumpy(), x[:, ::-1, ::-1], atol=1e-5)
    sq = np.arange(9, dtype="float32").reshape(1, 3, 3)
    np.testing.assert_allclose(mx.image.imrotate(mx.nd.array(sq), 90).asnumpy(), np.rot90(sq, 1, axes=(1, 2)),
                               atol=1e-5)
    batch = mx.image.imrotate(mx.nd.array(np.stack([sq, sq])), mx.nd.array([0, 180])).asnumpy()
    np.testing.assert_allclose(batch[0], sq, atol=1e-5)
    np.testing.assert_allclose(batch[1], sq[:, ::-1, ::-1], atol=1e-5)
    # counterclockwise, as MXNet; a 45 degree rotation leaves zero (padding) corners; zoom_in removes them
    ones = mx.nd.ones((1, 5, 5))
    assert mx.image.imrotate(ones, 45).asnumpy()[0, 0, 0] < 0.5
    assert mx.image.imrotate(ones, 45, zoom_in=True).asnumpy().min() > 0.99
    with pytest.raises(TypeError, match="float32.*uint8"):
        mx.image.imrotate(mx.nd.ones((1, 2, 2), dtype="uint8"), 10)
    with pytest.raises(ValueError, match="cannot be both True"):
        mx.image.imrotate(ones, 10, zoom_in=True, zoom_out=True)
