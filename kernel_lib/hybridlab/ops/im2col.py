"""``im2col`` and ``col2im`` (MXNet 1.9.1): sliding blocks of an image as columns, and back.

* ``im2col(data, kernel, stride=(), dilate=(), pad=())``: ``data`` (N, C, *S) with 1, 2 or 3
  spatial dimensions (as many as ``kernel`` has) becomes (N, C * prod(kernel), L): row
  ``c * prod(kernel) + k`` holds channel ``c`` at kernel position ``k`` (row-major), column ``l`` the
  block at output position ``l`` (row-major) of a convolution with the same kernel, stride (default
  1), dilation (default 1) and zero padding (default 0, on both sides). The dilated kernel must fit
  the padded input.
* ``col2im(data, output_size, kernel, stride=(), dilate=(), pad=())``: ``data`` (N, C * prod(kernel),
  L) summed back into an image (N, C, *output_size): overlapping blocks add up, padding is dropped.
  ``L`` must be the number of blocks of ``output_size``.

Each is the other's gradient (MXNet: "col2im is the gradient of im2col and vice versa"), so both
gradients are registered ops.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.arange(9).reshape((1, 1, 3, 3))
    >>> cols = mx.nd.im2col(x, kernel=(2, 2))
    >>> cols.asnumpy().tolist()
    [[[0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0]]]
    >>> mx.nd.col2im(cols, output_size=(3, 3), kernel=(2, 2))[0, 0].asnumpy().tolist()
    [[0.0, 2.0, 2.0], [6.0, 16.0, 10.0], [6.0, 14.0, 8.0]]
"""
from ..base import MXNetError
from .attrs import Attr
from .conv import conv_params, kernel_slices, pad_spatial, windows
from .infer import InferError, prod
from .registry import OpDef, register

__all__ = []

_WINDOW_ATTRS = {
    "kernel": Attr("shape", doc="Sliding kernel size: (w,), (h, w) or (d, h, w)."),
    "stride": Attr("shape", (), doc="Stride between adjacent blocks; 1 per dimension by default."),
    "dilate": Attr("shape", (), doc="Spacing between adjacent kernel points; 1 per dimension by default."),
    "pad": Attr("shape", (), doc="Zero padding on both sides of each spatial dimension; 0 by default."),
}
_COL2IM_ATTRS = {"output_size": Attr("shape", doc="Spatial size of the image: (w,), (h, w) or (d, h, w)."),
                 **_WINDOW_ATTRS}
_BOUNDS = {"pad": (0, None)}


def _geometry(a, spatial, name, arg):
    """``(kernel, stride, dilate, pad, out_spatial)`` for an image of ``spatial`` size."""
    nd, k, s, d, p = conv_params(a, name)
    if len(spatial) != nd:
        raise InferError(arg, f"{nd} spatial dimension{'s' if nd > 1 else ''} (like kernel {tuple(k)})", tuple(spatial))
    out = []
    for size, kk, ss, dd, pp in zip(spatial, k, s, d, p):
        dk = dd * (kk - 1) + 1
        if dk > size + 2 * pp:
            raise InferError(arg, f"a padded size of at least {dk} (the dilated kernel)", tuple(spatial),
                             "kernel size exceeds the input", alone=True)
        out.append((size + 2 * pp - dk) // ss + 1)
    return k, s, d, p, tuple(out)


def _im2col_infer(a, in_shapes):
    d = in_shapes[0]
    if d is None:
        return [None]
    if len(d) < 3:
        raise InferError(0, "(N, C, *spatial) with 1 to 3 spatial dimensions", tuple(d))
    k, _, _, _, out_sp = _geometry(a, d[2:], "im2col", 0)
    return [(d[0], d[1] * prod(k), prod(out_sp))]


def _im2col_compute(ctx, a, data):
    xp = ctx.xp
    if data.ndim < 3:
        raise MXNetError(f"im2col: data expected (N, C, *spatial), got {data.shape}")
    k, s, d, p, out_sp = _geometry(a, data.shape[2:], "im2col", 0)
    n, c, nd = data.shape[0], data.shape[1], len(k)
    x = xp.ascontiguousarray(pad_spatial(xp, data, p, p))
    w = windows(xp, x, out_sp, k, s, d)                                    # (N, C, *out, *k)
    axes = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return xp.ascontiguousarray(w.transpose(axes)).reshape(n, c * prod(k), prod(out_sp))


def _im2col_grad(F, a, inputs, outputs, ograds):
    return [F.col2im(ograds[0], output_size=tuple(inputs[0].shape[2:]), **a)]


register(OpDef(
    "im2col", inputs=("data",), attrs=_WINDOW_ATTRS, bounds=_BOUNDS, compute=_im2col_compute,
    infer_shape=_im2col_infer, grad=_im2col_grad, family="conv",
    doc="""Sliding blocks of ``data`` (N, C, *spatial) as columns (N, C * prod(kernel), number of blocks),
with a convolution's kernel, stride, dilate and pad."""))


def _col2im_infer(a, in_shapes):
    out_size = tuple(a["output_size"])
    if len(out_size) != len(a["kernel"]):
        raise MXNetError(f"col2im: output_size expected {len(a['kernel'])} dimensions (like kernel "
                         f"{tuple(a['kernel'])}), got {out_size}")
    k, _, _, _, out_sp = _geometry(a, out_size, "col2im", 0)
    d = in_shapes[0]
    if d is None:
        return [None]
    blocks, kk = prod(out_sp), prod(k)
    if len(d) != 3 or d[1] % kk or d[2] != blocks:
        raise InferError(0, f"(N, C * {kk}, {blocks}): the columns of output_size {out_size}", tuple(d))
    return [(d[0], d[1] // kk) + out_size]


def _col2im_compute(ctx, a, data):
    xp = ctx.xp
    out_shape = _col2im_infer(a, [data.shape])[0]
    k, s, d, p, out_sp = _geometry(a, out_shape[2:], "col2im", 0)
    n, c, nd = out_shape[0], out_shape[1], len(k)
    cols = data.reshape((n, c) + tuple(k) + out_sp)
    padded = xp.zeros((n, c) + tuple(sz + 2 * pp for sz, pp in zip(out_shape[2:], p)), dtype=data.dtype)
    for pos, sl in kernel_slices(k, s, d, out_sp):
        padded[sl] += cols[(slice(None), slice(None)) + pos]
    crop = (slice(None), slice(None)) + tuple(slice(pp, pp + sz) for pp, sz in zip(p, out_shape[2:]))
    return xp.ascontiguousarray(padded[crop]) if any(p) else padded


def _col2im_grad(F, a, inputs, outputs, ograds):
    return [F.im2col(ograds[0], **{key: a[key] for key in _WINDOW_ATTRS})]


register(OpDef(
    "col2im", inputs=("data",), attrs=_COL2IM_ATTRS, bounds=_BOUNDS, compute=_col2im_compute,
    infer_shape=_col2im_infer, grad=_col2im_grad, family="conv",
    doc="""Columns (N, C * prod(kernel), number of blocks) summed back into an image (N, C, *output_size):
the adjoint of im2col with the same kernel, stride, dilate and pad."""))
