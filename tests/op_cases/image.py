"""Op-checker cases for ops/image.py (MXNet's ``_image_*`` operators): NumPy references of HWC / CHW
image arithmetic; the random flips against the seeded CPU generator's first draw (on a GPU: the
output is the image or its flip)."""
import numpy as np

from op_checker import Case
from op_cases.random import SEED, gen

EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]])


def ref_to_tensor(x):
    return (np.moveaxis(x, -1, -3).astype(np.float32) / np.float32(255.0))


def ref_normalize(x, mean=(0.0,), std=(1.0,)):
    c = x.shape[-3]
    m = np.broadcast_to(np.asarray(mean, np.float64), (c,)).reshape(c, 1, 1)
    s = np.broadcast_to(np.asarray(std, np.float64), (c,)).reshape(c, 1, 1)
    return ((x - m) / s).astype(x.dtype)


def ref_backward_normalize(g, mean=(0.0,), std=(1.0,)):
    c = g.shape[-3]
    return (g / np.broadcast_to(np.asarray(std, np.float64), (c,)).reshape(c, 1, 1)).astype(g.dtype)


def ref_random_flip(axis):
    def ref(x):
        return np.flip(x, axis) if gen().random() < 0.5 else x
    return ref


def either_flip(axis):
    def check(got, x):
        y = got[0]          # (the op's outputs, as every gpu_check gets them)
        assert np.array_equal(y, x) or np.array_equal(y, np.flip(x, axis)), "expected the image or its flip"
    return check


def ref_crop(img, x=0, y=0, width=1, height=1):
    return img[..., y:y + height, x:x + width, :]


def ref_backward_crop(g, data, x=0, y=0, width=1, height=1):
    out = np.zeros(data.shape, g.dtype)
    out[..., y:y + height, x:x + width, :] = g
    return out


def ref_lighting(x, alpha):
    out = x.astype(np.float64) + EIG @ np.asarray(alpha, np.float64)
    return (np.clip(out, 0, 255) if x.dtype == np.uint8 else out).astype(x.dtype)


def uint8_image(shape):
    return lambda rng: rng.integers(0, 256, shape).astype(np.uint8)


CROP = {"x": 1, "y": 0, "width": 2, "height": 2}

CASES = [
    Case("_image_to_tensor", [uint8_image((4, 5, 3))], ref=ref_to_tensor, grad=()),
    Case("_image_to_tensor", [(2, 4, 5, 1)], ref=ref_to_tensor, grad=(), name="batch_float"),
    Case("_image_normalize", [(3, 4, 5)], attrs={"mean": (0.0, 1.0, 2.0), "std": (3.0, 2.0, 1.0)},
         ref=ref_normalize),
    Case("_image_normalize", [(2, 3, 4, 5)], attrs={"mean": 1.0, "std": 2.0}, ref=ref_normalize, name="batch_scalar"),
    Case("_image_normalize", [(1, 4, 5)], attrs={"mean": (0.5,), "std": (0.25,)}, ref=ref_normalize, name="grey"),
    Case("_backward_image_normalize", [(3, 2, 2)], attrs={"mean": (0.0, 1.0, 2.0), "std": (3.0, 2.0, 1.0)},
         ref=ref_backward_normalize),
    Case("_image_flip_left_right", [(3, 4, 3)], ref=lambda x: np.flip(x, 1)),
    Case("_image_flip_top_bottom", [(3, 4, 1)], ref=lambda x: np.flip(x, 0)),
    Case("_image_random_flip_left_right", [(3, 4, 3)], ref=ref_random_flip(1), seed=SEED, grad=(),
         gpu_check=either_flip(1)),
    Case("_image_random_flip_top_bottom", [(3, 4, 3)], ref=ref_random_flip(0), seed=SEED, grad=(),
         gpu_check=either_flip(0)),
    Case("_image_crop", [(3, 4, 3)], attrs=CROP, ref=ref_crop),
    Case("_image_crop", [(2, 3, 4, 1)], attrs={"x": 0, "y": 1, "width": 4, "height": 2},
         ref=ref_crop, name="batch"),
    Case("_backward_image_crop", [(2, 2, 3), (3, 4, 3)], attrs=CROP, ref=ref_backward_crop, grad=(0,)),
    Case("_image_adjust_lighting", [(2, 3, 3)], attrs={"alpha": (0.1, 0.2, 0.3)}, ref=ref_lighting),
]
