"""MXNet 1.9.1's image operators (``mx.nd.image.*``, ``mx.sym.image.*``, ``mx.npx.image.*``) on HWC
images (and NHWC batches where MXNet takes them):

* ``_image_to_tensor``: (H, W, C) / (N, H, W, C) of any dtype -> float32 (C, H, W) / (N, C, H, W)
  divided by 255,
* ``_image_normalize``: ``(x - mean[c]) / std[c]`` per channel of (C, H, W) / (N, C, H, W) with 1 or
  3 channels (``mean``/``std``: one value for all channels or one per channel); gradient ``1/std``,
* ``_image_flip_left_right`` / ``_image_flip_top_bottom`` of (H, W, C) images, and their random
  versions (each flips with probability 0.5, drawn from the device generator ``mx.random.seed``
  seeds),
* ``_image_crop``: the ``height x width`` window at (``x``, ``y``) of (H, W, C) or (N, H, W, C),
* ``_image_adjust_lighting``: AlexNet's PCA lighting shift of an RGB (H, W, 3) image by the
  ``alpha`` weights of the three principal components (uint8 results saturate to [0, 255]).

The gradients of the flips and the crop move the output gradient back to where the pixels came
from (MXNet 1.9.1 registers a plain copy as the flips' gradient); the random flips have none.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> img = mx.nd.array(np.arange(12).reshape(2, 2, 3), dtype='uint8')
    >>> t = mx.nd.image.to_tensor(img)
    >>> t.shape, t.dtype
    ((3, 2, 2), dtype('float32'))
    >>> mx.nd.image.normalize(t * 255, mean=(0, 1, 2), std=(1, 2, 4))[:, 0, 0].asnumpy().tolist()
    [0.0, 0.0, 0.0]
    >>> mx.nd.image.flip_left_right(img)[0, :, 0].asnumpy().tolist()
    [3, 0]
"""
import numpy as onp

from .attrs import Attr
from .infer import InferError
from .registry import NsName, OpDef, register

__all__ = []

# AlexNet's PCA of ImageNet RGB pixels: eigenvectors (columns) scaled by their eigenvalues, as MXNet has them
_EIG = onp.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                  [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                  [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], dtype=onp.float32)


def _names(name):
    """The npx name of an image op (``mx.npx.image.<short name>`` is made from it)."""
    return NsName(name)


def _check_channels(c, shape, where):
    if c not in (1, 3):
        raise InferError(0, f"{where} with 1 or 3 channels", f"shape {tuple(shape)}")


# ---- to_tensor ---------------------------------------------------------------------------------
def _to_tensor_shape(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) not in (3, 4):
        raise InferError(0, "an image (H, W, C) or a batch (N, H, W, C)", f"shape {tuple(d)}")
    return [(d[2], d[0], d[1]) if len(d) == 3 else (d[0], d[3], d[1], d[2])]


def _to_tensor(ctx, a, x):
    chw = ctx.xp.moveaxis(x, -1, -3).astype(onp.float32)
    return ctx.xp.ascontiguousarray(chw / onp.float32(255.0))


register(OpDef(
    "_image_to_tensor", family="shape", npx=_names("_image_to_tensor"),
    compute=_to_tensor, infer_shape=_to_tensor_shape, infer_type=lambda a, d: [onp.dtype(onp.float32)],
    no_grad_reason="MXNet's to_tensor has no gradient (image preprocessing)",
    doc="(H, W, C) or (N, H, W, C) images of any dtype -> float32 (C, H, W) / (N, C, H, W) divided by 255."))


# ---- normalize ---------------------------------------------------------------------------------
def _channel_values(a, key, c):
    v = a[key]
    if len(v) not in (1, c):
        raise InferError(0, f"{key} with 1 or {c} values (one per channel)", f"{key}={v}")
    return onp.broadcast_to(onp.asarray(v, dtype=onp.float64), (c,))


def _normalize_shape(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) not in (3, 4):
        raise InferError(0, "a tensor (C, H, W) or a batch (N, C, H, W)", f"shape {tuple(d)}")
    c = d[-3]
    _check_channels(c, d, "a tensor (C, H, W) or (N, C, H, W)")
    _channel_values(a, "mean", c)
    _channel_values(a, "std", c)
    return [tuple(d)]


def _per_channel(xp, a, key, x):
    c = x.shape[-3]
    return xp.asarray(_channel_values(a, key, c).reshape(c, 1, 1).astype(x.dtype))


def _normalize(ctx, a, x):
    xp = ctx.xp
    return ((x - _per_channel(xp, a, "mean", x)) / _per_channel(xp, a, "std", x)).astype(x.dtype, copy=False)


def _normalize_backward(ctx, a, g):
    return (g / _per_channel(ctx.xp, a, "std", g)).astype(g.dtype, copy=False)


_NORMALIZE_ATTRS = {
    "mean": Attr("floats", (0.0, 0.0, 0.0, 0.0), doc="Mean of each channel, or one for all channels."),
    "std": Attr("floats", (1.0, 1.0, 1.0, 1.0), doc="Standard deviation of each channel, or one for all."),
}


def _normalize_grad(F, a, inputs, outputs, ograds):
    return [F._backward_image_normalize(ograds[0], mean=a["mean"], std=a["std"])]


register(OpDef(
    "_image_normalize", family="elemwise", npx=_names("_image_normalize"), attrs=dict(_NORMALIZE_ATTRS),
    compute=_normalize, infer_shape=_normalize_shape, grad=_normalize_grad,
    doc="(x - mean[c]) / std[c] for each channel c of (C, H, W) or (N, C, H, W) data with 1 or 3 channels."))

register(OpDef(
    "_backward_image_normalize", family="elemwise", hidden=True, inputs=("ograd",),
    attrs=dict(_NORMALIZE_ATTRS), compute=_normalize_backward, infer_shape=_normalize_shape,
    grad=_normalize_grad,
    doc="Gradient of _image_normalize: the output gradient divided by std[c] in each channel."))


# ---- flips -------------------------------------------------------------------------------------
def _image_shape(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) != 3:
        raise InferError(0, "an image (H, W, C)", f"shape {tuple(d)}")
    _check_channels(d[2], d, "an image (H, W, C)")
    return [tuple(d)]


def _flip(axis):
    return lambda ctx, a, x: ctx.xp.ascontiguousarray(ctx.xp.flip(x, axis=axis))


def _flip_grad(name):
    return lambda F, a, ins, outs, og: [getattr(F, name)(og[0])]


def _random_flip(axis):
    def compute(ctx, a, x):
        draw = ctx.rng.random() if hasattr(ctx.rng, "integers") else float(ctx.rng.random_sample())
        return ctx.xp.ascontiguousarray(ctx.xp.flip(x, axis=axis)) if draw < 0.5 else x.copy()
    return compute


for _name, _axis, _what in (("flip_left_right", 1, "left to right"), ("flip_top_bottom", 0, "top to bottom")):
    register(OpDef(
        f"_image_{_name}", family="shape", npx=_names(f"_image_{_name}"), compute=_flip(_axis),
        infer_shape=_image_shape, grad=_flip_grad(f"_image_{_name}"),
        doc=f"Flip an (H, W, C) image {_what} (1 or 3 channels)."))
    register(OpDef(
        f"_image_random_{_name}", family="random", npx=_names(f"_image_random_{_name}"),
        compute=_random_flip(_axis), infer_shape=_image_shape, needs_rng=True,
        no_grad_reason="which way the gradient goes depends on an unrecorded random draw",
        doc=f"Flip an (H, W, C) image {_what} with probability 0.5 (the device generator draws)."))


# ---- crop --------------------------------------------------------------------------------------
def _crop_window(a, d):
    if len(d) not in (3, 4):
        raise InferError(0, "an image (H, W, C) or a batch (N, H, W, C)", f"shape {tuple(d)}")
    _check_channels(d[-1], d, "an image (H, W, C) or (N, H, W, C)")
    x, y, w, h = a["x"], a["y"], a["width"], a["height"]
    if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > d[-2] or y + h > d[-3]:
        raise InferError(0, f"a crop window (x={x}, y={y}, width={w}, height={h}) with positive size "
                            "inside the image", f"an image of height {d[-3]} and width {d[-2]}")
    return (Ellipsis, slice(y, y + h), slice(x, x + w), slice(None))


def _crop_shape(a, s):
    d = s[0]
    if d is None:
        return [None]
    _crop_window(a, d)
    return [tuple(d[:-3]) + (a["height"], a["width"], d[-1])]


def _crop(ctx, a, x):
    return ctx.xp.ascontiguousarray(x[_crop_window(a, x.shape)])


def _crop_backward(ctx, a, g, data):
    out = ctx.xp.zeros(data.shape, dtype=g.dtype)
    out[_crop_window(a, data.shape)] = g
    return out


_CROP_ATTRS = {"x": Attr("int", doc="Left boundary of the cropping area."),
               "y": Attr("int", doc="Top boundary of the cropping area."),
               "width": Attr("int", doc="Width of the cropping area."),
               "height": Attr("int", doc="Height of the cropping area.")}

register(OpDef(
    "_image_crop", family="shape", npx=_names("_image_crop"), attrs=dict(_CROP_ATTRS),
    compute=_crop, infer_shape=_crop_shape,
    grad=lambda F, a, ins, outs, og: [F._backward_image_crop(og[0], ins[0], **{k: a[k] for k in _CROP_ATTRS})],
    doc="The height x width window whose top-left corner is (x, y) of (H, W, C) or (N, H, W, C) images."))

register(OpDef(
    "_backward_image_crop", family="shape", hidden=True, inputs=("ograd", "data"), attrs=dict(_CROP_ATTRS),
    compute=_crop_backward, infer_shape=lambda a, s: [None if s[1] is None else tuple(s[1])],
    infer_type=lambda a, d: [d[0]],
    grad=lambda F, a, ins, outs, og: [F._image_crop(og[0], **{k: a[k] for k in _CROP_ATTRS}), None],
    doc="Gradient of _image_crop: the output gradient placed at the window, zeros elsewhere (data's shape)."))


# ---- adjust_lighting ---------------------------------------------------------------------------
def _lighting(ctx, a, x):
    xp = ctx.xp
    if x.shape[-1] == 1:          # MXNet leaves grey images as they are
        return x.copy()
    work = onp.promote_types(x.dtype, onp.float32)      # MXNet adds in float32 (float64 stays float64)
    shift = xp.asarray((_EIG @ onp.asarray(a["alpha"], dtype=onp.float32)).astype(work))
    out = x.astype(work) + shift
    if x.dtype == onp.uint8:
        out = xp.clip(out, 0, 255)
    return out.astype(x.dtype)


def _lighting_shape(a, s):
    if len(a["alpha"]) != 3:
        raise InferError(0, "alpha with 3 values (one per principal component)", f"alpha={a['alpha']}")
    return _image_shape(a, s)


register(OpDef(
    "_image_adjust_lighting", family="elemwise", npx=_names("_image_adjust_lighting"),
    attrs={"alpha": Attr("floats", doc="The lighting alphas for the R, G, B channels.")},
    compute=_lighting, infer_shape=_lighting_shape, grad=lambda F, a, ins, outs, og: [F._copy(og[0])],
    doc="AlexNet's PCA lighting: add eig @ alpha (ImageNet's principal components) to each RGB pixel of "
        "an (H, W, 3) image; uint8 saturates to [0, 255]; 1-channel images pass unchanged."))
