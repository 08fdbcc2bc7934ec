"""Spatial transformer networks (MXNet 1.9.1): ``GridGenerator``, ``BilinearSampler`` and
``SpatialTransformer``, with their internal gradients ``_backward_GridGenerator`` and
``_backward_BilinearSampler``.

A sampling grid (N, 2, H, W) holds, for every output pixel, the source position ``(x, y)``
normalised to [-1, 1] over the source's width and height (channel 0 is x, channel 1 is y).

* ``GridGenerator(data, transform_type, target_shape)``: ``'affine'``: ``data`` (N, 6) is a 2x3
  matrix per sample, applied to the target grid's normalised coordinates
  ``(-1 + 2 j / (W - 1), -1 + 2 i / (H - 1), 1)``, ``target_shape`` = (H, W) (required, positive).
  ``'warp'``: ``data`` (N, 2, H, W) is an optical flow in pixels; the grid is
  ``(j + flow_x) / ((W - 1) / 2) - 1`` and ``(i + flow_y) / ((H - 1) / 2) - 1`` (``target_shape`` is
  ignored). A size of 1 divides by zero, as in MXNet (NaN).
* ``BilinearSampler(data, grid)``: bilinear interpolation of ``data`` (N, C, H, W) at
  ``x = (grid_x + 1) (W - 1) / 2``, ``y = (grid_y + 1) (H - 1) / 2``; the four neighbours outside
  the image count as 0 (zero padding). The output is (N, C, Ho, Wo). Gradients go to the data (the
  interpolation weights, scattered) and to the grid (the slopes between the neighbours); at integer
  positions the slope is the one towards the next pixel (``floor``), as MXNet computes it.
  ``cudnn_off`` is accepted and changes nothing.
* ``SpatialTransformer(data, loc, target_shape, transform_type='affine', sampler_type='bilinear')``:
  ``BilinearSampler(data, GridGenerator(loc, 'affine', target_shape))``; ``loc`` is (N, 6).

Example::

    >>> import hybridlab as mx
    >>> data = mx.nd.array([[[[1, 4, 3, 6], [1, 8, 8, 9], [0, 4, 1, 5], [1, 0, 1, 3]]]])
    >>> grid = mx.nd.GridGenerator(mx.nd.array([[2, 0, 0, 0, 2, 0]]), transform_type='affine',
    ...                            target_shape=(4, 4))
    >>> mx.nd.BilinearSampler(data, grid)[0, 0].asnumpy().round(4).tolist()
    [[0.0, 0.0, 0.0, 0.0], [0.0, 3.5, 6.5, 0.0], [0.0, 1.25, 2.5, 0.0], [0.0, 0.0, 0.0, 0.0]]
    >>> mx.nd.SpatialTransformer(data, mx.nd.array([[1, 0, 0, 0, 1, 0]]), target_shape=(2, 2),
    ...                          transform_type='affine', sampler_type='bilinear')[0, 0].asnumpy().tolist()
    [[1.0, 6.0], [1.0, 3.0]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError, merge_shape
from .registry import OpDef, register

__all__ = []


# ---- GridGenerator ----------------------------------------------------------------------------
_GRID_ATTRS = {
    "transform_type": Attr("enum", choices=("affine", "warp"),
                           doc="'affine': data is (N, 6) affine matrices; 'warp': data is an optical flow (N, 2, H, W)."),
    "target_shape": Attr("shape", (0, 0), doc="Output (H, W) for 'affine' (required there); ignored for 'warp'."),
}


def _target(a, name):
    ts = a["target_shape"]
    if len(ts) < 2 or ts[0] <= 0 or ts[1] <= 0:
        raise MXNetError(f"{name}: target_shape expected a positive (H, W), got {tuple(ts)}")
    return int(ts[0]), int(ts[1])


def _base(xp, h, w, dtype):
    """The target grid's normalised coordinates as rows (x, y, 1): (3, h * w); NaN for a size of 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = -1.0 + np.arange(w, dtype=np.float64) * 2.0 / np.float64(w - 1)
        ys = -1.0 + np.arange(h, dtype=np.float64) * 2.0 / np.float64(h - 1)
    base = np.stack([np.tile(xs, h), np.repeat(ys, w), np.ones(h * w)])
    return xp.asarray(base.astype(dtype))


def _warp_scale(xp, h, w, dtype):
    """(2, 1, 1) divisors ((W - 1) / 2, (H - 1) / 2) turning pixel positions into [-1, 1]."""
    return xp.asarray(np.array([(w - 1) / 2.0, (h - 1) / 2.0], dtype=dtype).reshape(2, 1, 1))


def _grid_compute(ctx, a, data):
    xp = ctx.xp
    _grid_infer(a, [data.shape])
    if a["transform_type"] == "affine":
        h, w = _target(a, "GridGenerator")
        theta = data.reshape(data.shape[0], 2, 3)
        return xp.matmul(theta, _base(xp, h, w, data.dtype)).reshape(data.shape[0], 2, h, w)
    n, _, h, w = data.shape
    pix = xp.stack([xp.broadcast_to(xp.arange(w, dtype=data.dtype)[None, :], (h, w)),
                    xp.broadcast_to(xp.arange(h, dtype=data.dtype)[:, None], (h, w))])
    with np.errstate(divide="ignore", invalid="ignore"):
        return (data + pix) / _warp_scale(xp, h, w, data.dtype) - 1


def _grid_infer(a, in_shapes):
    d = in_shapes[0]
    if a["transform_type"] == "affine":
        h, w = _target(a, "GridGenerator")
        if d is not None and (len(d) != 2 or d[1] not in (0, 6)):
            raise InferError(0, "(batch, 6) affine matrices", tuple(d), "transform_type='affine'")
        return [None if d is None else (d[0], 2, h, w)]
    if d is not None and (len(d) != 4 or d[1] not in (0, 2)):
        raise InferError(0, "(batch, 2, H, W) optical flow", tuple(d), "transform_type='warp'")
    return [None if d is None else tuple(d)]


def _grid_grad(F, a, inputs, outputs, ograds):
    return [F._backward_GridGenerator(ograds[0], transform_type=a["transform_type"])]


register(OpDef(
    "GridGenerator", inputs=("data",), attrs=_GRID_ATTRS, compute=_grid_compute, infer_shape=_grid_infer,
    grad=_grid_grad, family="nn",
    doc="""Sampling grid (N, 2, H, W) in [-1, 1] for BilinearSampler: from (N, 6) affine matrices over a
``target_shape`` grid ('affine') or from an optical flow (N, 2, H, W) in pixels ('warp')."""))


def _grid_backward_compute(ctx, a, ograd):
    xp = ctx.xp
    if ograd.ndim != 4 or ograd.shape[1] != 2:
        raise MXNetError(f"_backward_GridGenerator: ograd expected (N, 2, H, W), got {ograd.shape}")
    n, _, h, w = ograd.shape
    if a["transform_type"] == "affine":
        g = xp.matmul(ograd.reshape(n, 2, h * w), _base(xp, h, w, ograd.dtype).T)
        return g.reshape(n, 6)
    with np.errstate(divide="ignore", invalid="ignore"):
        return ograd / _warp_scale(xp, h, w, ograd.dtype)


def _grid_backward_infer(a, in_shapes):
    g = in_shapes[0]
    if g is None:
        return [None]
    if len(g) != 4 or g[1] != 2:
        raise InferError(0, "(batch, 2, H, W) grid gradient", tuple(g))
    return [(g[0], 6) if a["transform_type"] == "affine" else tuple(g)]


def _grid_backward_grad(F, a, inputs, outputs, ograds):
    # linear in ograd: its adjoint is the grid map without the offset (affine) or the same scaling (warp)
    if a["transform_type"] == "affine":
        h, w = inputs[0].shape[2:]
        return [F.GridGenerator(ograds[0], transform_type="affine", target_shape=(h, w))]
    return [F._backward_GridGenerator(ograds[0], transform_type="warp")]


register(OpDef(
    "_backward_GridGenerator", inputs=("ograd",), attrs=_GRID_ATTRS, compute=_grid_backward_compute,
    infer_shape=_grid_backward_infer, grad=_grid_backward_grad, family="nn", hidden=True,
    doc="""Gradient of GridGenerator w.r.t. its data from the grid's gradient (N, 2, H, W): the (N, 6)
matrix gradient ('affine') or the flow gradient ('warp'); ``target_shape`` is read from ``ograd``."""))


# ---- BilinearSampler ----------------------------------------------------------------------------
_SAMPLER_ATTRS = {"cudnn_off": Attr("bool?", None, doc="Accepted for compatibility; no effect.")}


def _corners(xp, data, grid):
    """The four neighbours of every sampling position: a list of ``(dy, dx, weight, valid, flat)``
    (weights and masks (N, Ho, Wo); ``flat`` the in-image position y * W + x, 0 where invalid) and the
    fractional parts ``(fy, fx)``."""
    _, _, h, w = data.shape
    x = (grid[:, 0] + 1) * ((w - 1) / 2.0)
    y = (grid[:, 1] + 1) * ((h - 1) / 2.0)
    x0, y0 = xp.floor(x), xp.floor(y)
    fx, fy = x - x0, y - y0
    with np.errstate(invalid="ignore"):     # NaN positions (a grid of size 1) read nothing
        x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    out = []
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            valid = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            weight = (fy if dy else 1 - fy) * (fx if dx else 1 - fx)
            flat = xp.where(valid, yy * w + xx, 0)
            out.append((dy, dx, weight, valid, flat))
    return out, fy, fx


def _gather(xp, data, valid, flat):
    """``data`` (N, C, H, W) at the flat positions ``flat`` (N, Ho, Wo); 0 where not ``valid``."""
    n, c = data.shape[:2]
    idx = xp.broadcast_to(flat.reshape(n, 1, -1), (n, c, flat[0].size))
    v = xp.take_along_axis(data.reshape(n, c, -1), idx, axis=2).reshape((n, c) + flat.shape[1:])
    return v * valid[:, None].astype(data.dtype)


def _sampler_check(data, grid, name):
    if data.ndim != 4 or grid.ndim != 4 or grid.shape[1] != 2 or grid.shape[0] != data.shape[0]:
        raise MXNetError(f"{name}: expected data (N, C, H, W) and grid (N, 2, Ho, Wo), got {data.shape} "
                         f"and {grid.shape}")


def _sample(xp, data, grid):
    corners, _, _ = _corners(xp, data, grid)
    out = None
    for _, _, weight, valid, flat in corners:
        term = _gather(xp, data, valid, flat) * weight[:, None].astype(data.dtype)
        out = term if out is None else out + term
    return out


def _sampler_compute(ctx, a, data, grid):
    _sampler_check(data, grid, "BilinearSampler")
    return _sample(ctx.xp, data, grid)


def _sampler_infer(a, in_shapes):
    d, g = in_shapes
    if d is not None and len(d) != 4:
        raise InferError(0, "(batch, channel, H, W)", tuple(d))
    if g is not None and (len(g) != 4 or g[1] not in (0, 2)):
        raise InferError(1, "(batch, 2, Ho, Wo): channels x and y", tuple(g))
    if d is None or g is None:
        return [None]
    if d[0] and g[0] and d[0] != g[0]:
        raise InferError(1, f"batch size {d[0]} (the data's)", tuple(g))
    return [(d[0] or g[0], d[1], g[2], g[3])]


def _sampler_grad(F, a, inputs, outputs, ograds):
    res = F._backward_BilinearSampler(ograds[0], inputs[0], inputs[1])
    return [res[0], res[1]]


register(OpDef(
    "BilinearSampler", inputs=("data", "grid"), attrs=_SAMPLER_ATTRS, compute=_sampler_compute,
    infer_shape=_sampler_infer, grad=_sampler_grad, family="nn",
    doc="""Bilinear sampling of ``data`` (N, C, H, W) at the positions of ``grid`` (N, 2, Ho, Wo), x and
y normalised to [-1, 1]; neighbours outside the image are 0. Output (N, C, Ho, Wo)."""))


def _sampler_backward(xp, og, data, grid):
    n, c, h, w = data.shape
    corners, fy, fx = _corners(xp, data, grid)
    gdata = xp.zeros(n * c * h * w, dtype=np.float64)
    base = (xp.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, c, 1, 1)
    gx = xp.zeros(grid.shape[:1] + grid.shape[2:], dtype=og.dtype)
    gy = xp.zeros_like(gx)
    for dy, dx, weight, valid, flat in corners:
        contrib = og * weight[:, None].astype(og.dtype) * valid[:, None].astype(og.dtype)
        idx = xp.broadcast_to(base + flat[:, None], contrib.shape)
        gdata += xp.bincount(idx.ravel(), weights=contrib.ravel().astype(np.float64), minlength=gdata.size)
        # d weight / d x and d weight / d y, weighted by the neighbour's value and ograd (over channels)
        v = (_gather(xp, data, valid, flat) * og).sum(axis=1)
        sx, sy = (1 if dx else -1), (1 if dy else -1)
        gx += v * (sx * (fy if dy else 1 - fy)).astype(og.dtype)
        gy += v * (sy * (fx if dx else 1 - fx)).astype(og.dtype)
    ggrid = xp.stack([gx * ((w - 1) / 2.0), gy * ((h - 1) / 2.0)], axis=1).astype(grid.dtype)
    return gdata.reshape(data.shape).astype(data.dtype), ggrid


def _sampler_backward_compute(ctx, a, og, data, grid):
    _sampler_check(data, grid, "_backward_BilinearSampler")
    return _sampler_backward(ctx.xp, og, data, grid)


def _sampler_backward_infer(a, in_shapes):
    og, d, g = in_shapes
    if d is not None and g is not None and og is not None:
        want = _sampler_infer(a, [d, g])[0]
        if tuple(og) != tuple(want):
            raise InferError(0, want, tuple(og), "the sampler's output shape")
    return [None if d is None else tuple(d), None if g is None else tuple(g)]


register(OpDef(
    "_backward_BilinearSampler", inputs=("ograd", "data", "grid"), attrs=_SAMPLER_ATTRS,
    compute=_sampler_backward_compute, infer_shape=_sampler_backward_infer,
    infer_type=lambda a, d: [d[1], d[2]], family="nn", hidden=True, num_outputs=2,
    output_names=("data_grad", "grid_grad"),
    no_grad_reason="BilinearSampler's gradient is first order only (as in MXNet)",
    doc="""Gradients of BilinearSampler w.r.t. data and grid from the output gradient ``ograd``."""))


# ---- SpatialTransformer -----------------------------------------------------------------------
_ST_ATTRS = {
    "target_shape": Attr("shape", (0, 0), doc="Output (H, W); both must be positive."),
    "transform_type": Attr("enum", choices=("affine",), doc="Transformation type (only 'affine')."),
    "sampler_type": Attr("enum", choices=("bilinear",), doc="Sampling type (only 'bilinear')."),
    "cudnn_off": Attr("bool?", None, doc="Accepted for compatibility; no effect."),
}


def _st_infer(a, in_shapes):
    h, w = _target(a, "SpatialTransformer")
    d = in_shapes[0]
    loc = in_shapes[1]
    if loc is not None and (len(loc) != 2 or loc[1] not in (0, 6)):
        raise InferError(1, "(batch, 6) affine matrices", tuple(loc), "the localisation net's output")
    if d is None:
        return [None]
    if len(d) != 4:
        raise InferError(0, "(batch, channel, H, W)", tuple(d))
    merge_shape(in_shapes, 1, (d[0], 6), "one (2x3) affine matrix per sample")
    return [(d[0], d[1], h, w)]


def _st_compute(ctx, a, data, loc):
    _st_infer(a, [data.shape, loc.shape])
    grid = _grid_compute(ctx, {"transform_type": "affine", "target_shape": a["target_shape"]}, loc)
    return _sample(ctx.xp, data, grid)


def _st_grad(F, a, inputs, outputs, ograds):
    ts = _target(a, "SpatialTransformer")
    grid = F.GridGenerator(inputs[1], transform_type="affine", target_shape=ts)
    res = F._backward_BilinearSampler(ograds[0], inputs[0], grid)
    return [res[0], F._backward_GridGenerator(res[1], transform_type="affine")]


register(OpDef(
    "SpatialTransformer", inputs=("data", "loc"), attrs=_ST_ATTRS, compute=_st_compute, infer_shape=_st_infer,
    grad=_st_grad, family="nn",
    doc="""Affine spatial transformer: ``data`` (N, C, H, W) sampled bilinearly (zeros outside) on the grid
of the (N, 6) matrices ``loc`` over ``target_shape`` (H', W'); output (N, C, H', W')."""))
