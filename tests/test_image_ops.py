"""MXNet's image operators (``mx.nd.image``, ``mx.sym.image``, ``mx.npx.image``) from the one registry;
expected values recorded from MXNet 1.9.1."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.test_utils import check_numeric_gradient

LIGHTING = [-2.319716215133667, -2.5057730674743652, -1.758068323135376, 0.680283784866333, 0.49422693252563477,
            1.241931676864624, 3.680283784866333, 3.4942269325256348, 4.241931915283203, 6.680283546447754,
            6.494226932525635, 7.241931915283203]


def test_the_three_namespaces_list_the_same_image_ops():
    names = {"to_tensor", "normalize", "flip_left_right", "flip_top_bottom", "random_flip_left_right",
             "random_flip_top_bottom", "crop", "adjust_lighting"}
    for ns in (mx.nd.image, mx.sym.image, mx.npx.image):
        assert names <= set(vars(ns))


def test_to_tensor_is_chw_float32_over_255():
    img = mx.nd.array(np.arange(12).reshape(2, 2, 3), dtype="uint8")
    out = mx.nd.image.to_tensor(img)
    assert out.dtype == np.float32 and out.shape == (3, 2, 2)
    np.testing.assert_allclose(out.asnumpy(), np.moveaxis(np.arange(12).reshape(2, 2, 3), -1, 0) / 255.0, rtol=1e-6)
    assert mx.nd.image.to_tensor(mx.nd.ones((4, 5, 6, 1))).shape == (4, 1, 5, 6)


def test_normalize_per_channel_and_its_gradient():
    x = mx.nd.array(np.arange(12).reshape(3, 2, 2))
    out = mx.nd.image.normalize(x, mean=(1, 2, 3), std=(1, 2, 4))
    assert out.asnumpy().ravel().tolist() == [-1.0, 0.0, 1.0, 2.0, 1.0, 1.5, 2.0, 2.5, 1.25, 1.5, 1.75, 2.0]
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.image.normalize(x, mean=(0, 1, 2), std=(3, 2, 1))
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy()[:, 0, 0], [1 / 3, 1 / 2, 1.0], rtol=1e-6)
    check_numeric_gradient(mx.sym.image.normalize(mx.sym.var("data"), mean=1.0, std=2.0),
                           [np.random.uniform(size=(2, 3, 4, 4))])


@pytest.mark.parametrize("call", [
    lambda: mx.nd.image.normalize(mx.nd.ones((3, 2, 2))),                      # default mean has 4 values
    lambda: mx.nd.image.normalize(mx.nd.ones((2, 2, 2)), mean=(1,)),            # 2 channels
    lambda: mx.nd.image.normalize(mx.nd.ones((3, 2, 2)), mean=(1, 2)),
    lambda: mx.nd.image.flip_left_right(mx.nd.ones((2, 2, 2, 3))),              # a batch: images only
    lambda: mx.nd.image.crop(mx.nd.ones((2, 4, 3)), 3, 0, 2, 2),                # window outside the image
])
def test_invalid_image_arguments_raise_naming_the_op(call):
    with pytest.raises(mx.MXNetError, match="_image_"):
        call()


def test_flips_crop_and_lighting_values():
    img = mx.nd.array(np.arange(12).reshape(2, 2, 3))
    assert mx.nd.image.flip_left_right(img).asnumpy().ravel().tolist() == [3, 4, 5, 0, 1, 2, 9, 10, 11, 6, 7, 8]
    assert mx.nd.image.flip_top_bottom(img).asnumpy().ravel().tolist() == [6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5]
    crop = mx.nd.image.crop(mx.nd.array(np.arange(24).reshape(2, 4, 3)), 1, 0, 2, 2)
    assert crop.asnumpy().ravel().tolist() == [3, 4, 5, 6, 7, 8, 15, 16, 17, 18, 19, 20]
    np.testing.assert_allclose(mx.nd.image.adjust_lighting(img, alpha=(0.1, 0.2, 0.3)).asnumpy().ravel(), LIGHTING,
                               rtol=1e-6)
    saturated = mx.nd.image.adjust_lighting(img.astype("uint8"), alpha=(1, 2, 3))
    assert saturated.dtype == np.uint8 and saturated.asnumpy().max() == 0


def test_random_flip_follows_the_seed():
    img = mx.nd.array(np.arange(12).reshape(2, 2, 3))
    mx.random.seed(3)
    first = [mx.nd.image.random_flip_left_right(img).asnumpy() for _ in range(8)]
    mx.random.seed(3)
    again = [mx.nd.image.random_flip_left_right(img).asnumpy() for _ in range(8)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert all(np.array_equal(a, img.asnumpy()) or np.array_equal(a, img.asnumpy()[:, ::-1]) for a in first)


def test_image_ops_in_a_symbol_graph():
    data = mx.sym.var("data")
    net = mx.sym.image.normalize(mx.sym.image.to_tensor(data), mean=0.5, std=0.5)
    out = net.eval(data=mx.nd.full((2, 2, 3), 255, dtype="uint8"))[0]
    assert out.shape == (3, 2, 2) and out.asnumpy().tolist() == np.ones((3, 2, 2)).tolist()
