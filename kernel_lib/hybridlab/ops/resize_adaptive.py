"""Contrib resizing of NCHW images (MXNet 1.9.1): ``_contrib_BilinearResize2D``
(``mx.nd.contrib.BilinearResize2D``) and ``_contrib_AdaptiveAvgPooling2D``
(``mx.nd.contrib.AdaptiveAvgPooling2D``), with their internal gradients
``_backward_contrib_BilinearResize2D`` and ``_backward_contrib_AdaptiveAvgPooling2D``.

Both are separable linear maps: the output is ``A_h @ x @ A_w.T`` for an (out, in) matrix per axis,
so each gradient is ``A_h.T @ g @ A_w`` (and the gradient of that is the op again).

* ``BilinearResize2D(data[, like], height=1, width=1, scale_height=None, scale_width=None,
  mode='size', align_corners=True)``. The output size per ``mode``:
  ``'size'``: ``(height, width)``, or ``(int(H * scale_height), int(W * scale_width))`` when
  ``scale_height`` is given (then ``scale_width`` must be too; a lone ``scale_width`` is ignored);
  ``'odd_scale'`` (both scales required): ``int(d * scale)`` for an even size, ``int((d - 1) * scale)
  + 1`` for an odd one; ``'like'``: the height and width of a second input ``like`` (which gets a
  zero gradient); ``'to_even_down'`` / ``'to_even_up'`` / ``'to_odd_down'`` / ``'to_odd_up'``: the
  nearest even / odd size below / above (a size already right is kept). Products with a scale are
  computed in float32, as MXNet does. Output position ``o`` reads source position
  ``o * (in - 1) / (out - 1)`` with ``align_corners`` (the default), else
  ``max((o + 0.5) * in / out - 0.5, 0)``; an output size of 1 reads position 0. The neighbour
  above the last row (column) is that row itself.
* ``AdaptiveAvgPooling2D(data, output_size=())``: ``output_size`` () is (1, 1), one value ``k`` is
  (k, k), two are (h, w) (MXNet also turns three or more values into (1, 1)). Output cell ``i`` along
  an axis averages input cells ``floor(i * in / out)`` to ``ceil((i + 1) * in / out)`` (exclusive).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[[[0, 1], [2, 3]]]])
    >>> mx.nd.contrib.BilinearResize2D(x, height=3, width=3)[0, 0].asnumpy().tolist()
    [[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]
    >>> mx.nd.contrib.AdaptiveAvgPooling2D(mx.nd.arange(16).reshape((1, 1, 4, 4)), output_size=2)[0, 0].asnumpy().tolist()
    [[2.5, 4.5], [10.5, 12.5]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []


def _apply(xp, x, mh, mw):
    """``mh @ x @ mw.T`` over the last two axes of ``x`` (N, C, H, W); ``mh``, ``mw`` NumPy float64."""
    mh, mw = xp.asarray(mh.astype(x.dtype)), xp.asarray(mw.astype(x.dtype))
    return xp.ascontiguousarray(xp.matmul(xp.matmul(mh, x), mw.T))


def _apply_t(xp, g, mh, mw):
    """The adjoint ``mh.T @ g @ mw``."""
    return _apply(xp, g, mh.T, mw.T)


def _check4(shape, name, arg=0):
    if shape is not None and len(shape) != 4:
        raise InferError(arg, "(batch, channel, height, width)", tuple(shape), f"{name} takes NCHW data")


# ---- BilinearResize2D ------------------------------------------------------------------------
_RESIZE_MODES = ("like", "odd_scale", "size", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up")
_RESIZE_ATTRS = {
    "height": Attr("int", 1, doc="Output height (mode 'size' without scale_height)."),
    "width": Attr("int", 1, doc="Output width (mode 'size' without scale_height)."),
    "scale_height": Attr("float?", None, doc="Height scale (modes 'size' and 'odd_scale')."),
    "scale_width": Attr("float?", None, doc="Width scale (modes 'size' and 'odd_scale')."),
    "mode": Attr("enum", "size", choices=_RESIZE_MODES, doc="How the output size is chosen (module docstring)."),
    "align_corners": Attr("bool", True, doc="Map the corner pixels of input and output onto each other."),
}


def _scaled(d, scale):
    return int(np.float32(scale) * np.float32(d))


def _both_scales(a, mode):
    if a["scale_height"] is None or a["scale_width"] is None:
        when = "mode 'size' with scale_height" if mode == "size" else f"mode '{mode}'"
        raise MXNetError(f"_contrib_BilinearResize2D: {when} expected both scale_height and scale_width, "
                         f"got scale_height={a['scale_height']}, scale_width={a['scale_width']}")
    return a["scale_height"], a["scale_width"]


def _resize_size(a, d, like=None):
    """Output (height, width) for input spatial size ``d`` (and the ``like`` input's shape)."""
    mode = a["mode"]
    h, w = d
    if mode == "like":
        return tuple(like[2:4])
    if mode == "size":
        if a["scale_height"] is None:
            return a["height"], a["width"]
        sh, sw = _both_scales(a, mode)
        out = (_scaled(h, sh), _scaled(w, sw))
    elif mode == "odd_scale":
        out = tuple(_scaled(v, s) if v % 2 == 0 else _scaled(v - 1, s) + 1 for v, s in zip(d, _both_scales(a, mode)))
    else:
        want_even = mode.startswith("to_even")
        step = -1 if mode.endswith("down") else 1
        out = tuple(v if (v % 2 == 0) == want_even else v + step for v in d)
    if min(out) < 0:
        raise MXNetError(f"_contrib_BilinearResize2D: output size expected non-negative, got {out}")
    return out


def _resize_inputs(a):
    return ("data", "like") if a["mode"] == "like" else ("data",)


def _resize_infer(a, in_shapes):
    d = in_shapes[0]
    _check4(d, "BilinearResize2D")
    like = in_shapes[1] if a["mode"] == "like" else None
    if a["mode"] == "like":
        if like is not None and len(like) < 4:
            raise InferError(1, "an array with at least 4 dimensions (its height and width are used)", tuple(like))
        if like is None:
            return [None]
    if d is None:
        return [None]
    return [tuple(d[:2]) + tuple(_resize_size(a, d[2:], like))]


def _interp_matrix(n_in, n_out, align):
    """(n_out, n_in) bilinear interpolation weights along one axis. As MXNet computes them: a float32
    ratio, the source position rounded to float32, its fraction ``lam`` in float32."""
    m = np.zeros((n_out, n_in))
    ratio = float(np.float32(((n_in - 1) / (n_out - 1) if align else n_in / n_out) if n_out > 1 else 0.0))
    for o in range(n_out):
        src = np.float32(ratio * o if align else max(ratio * (o + 0.5) - 0.5, 0.0))
        i0 = int(src)
        lam = float(np.float32(src - np.float32(i0)))
        m[o, i0] += 1.0 - lam
        m[o, i0 + 1 if i0 < n_in - 1 else i0] += lam
    return m


def _resize_mats(data_hw, out_hw, align):
    return _interp_matrix(data_hw[0], out_hw[0], align), _interp_matrix(data_hw[1], out_hw[1], align)


def _resize_compute(ctx, a, data, like=None):
    out = _resize_infer(a, [data.shape, None if like is None else like.shape])[0]
    return _apply(ctx.xp, data, *_resize_mats(data.shape[2:], out[2:], a["align_corners"]))


def _resize_grad(F, a, inputs, outputs, ograds):
    g = F._backward_contrib_BilinearResize2D(ograds[0], inputs[0], align_corners=a["align_corners"])
    return [g] + ([F.zeros_like(inputs[1])] if len(inputs) > 1 else [])


register(OpDef(
    "_contrib_BilinearResize2D", inputs=_resize_inputs, all_inputs=("data", "like"), attrs=_RESIZE_ATTRS,
    bounds={"height": (1, None), "width": (1, None)}, compute=_resize_compute, infer_shape=_resize_infer,
    infer_type=lambda a, d: [d[0]], grad=_resize_grad, family="nn",
    doc="""Bilinear resizing of ``data`` (N, C, H, W) to a size given by ``mode``: 'size' (height, width
or the scales), 'odd_scale', 'like' (a second input's height and width), 'to_even_down',
'to_even_up', 'to_odd_down', 'to_odd_up'; ``align_corners`` maps corner pixels onto each other."""))


def _resize_backward_infer(a, in_shapes):
    g, d = in_shapes
    _check4(g, "_backward_contrib_BilinearResize2D")
    _check4(d, "_backward_contrib_BilinearResize2D", 1)
    if g is not None and d is not None and tuple(g[:2]) != tuple(d[:2]):
        raise InferError(0, f"batch and channels {tuple(d[:2])} (the data's)", tuple(g))
    return [None if d is None else tuple(d)]


def _resize_backward_compute(ctx, a, ograd, data):
    _resize_backward_infer(a, [ograd.shape, data.shape])
    mats = _resize_mats(data.shape[2:], ograd.shape[2:], a["align_corners"])
    return _apply_t(ctx.xp, ograd, *mats)


def _resize_backward_grad(F, a, inputs, outputs, ograds):
    oh, ow = inputs[0].shape[2:]
    return [F._contrib_BilinearResize2D(ograds[0], height=oh, width=ow, align_corners=a["align_corners"]), None]


register(OpDef(
    "_backward_contrib_BilinearResize2D", inputs=("ograd", "data"),
    attrs={"align_corners": _RESIZE_ATTRS["align_corners"]}, compute=_resize_backward_compute,
    infer_shape=_resize_backward_infer, infer_type=lambda a, d: [d[1] if d[1] is not None else d[0]],
    grad=_resize_backward_grad, family="nn", hidden=True,
    doc="""Gradient of BilinearResize2D w.r.t. its data: ``ograd`` (N, C, h, w) spread back onto the
(N, C, H, W) ``data`` grid by the transposed interpolation weights; ``data`` gives the shape."""))


# ---- AdaptiveAvgPooling2D ----------------------------------------------------------------------
def _pool_size(a):
    s = tuple(a["output_size"])
    if len(s) == 1:
        return s[0], s[0]
    return (s[0], s[1]) if len(s) == 2 else (1, 1)


def _pool_matrix(n_in, n_out):
    """(n_out, n_in): row ``i`` averages cells floor(i * in / out) .. ceil((i + 1) * in / out)."""
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        begin, end = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, begin:end] = 1.0 / (end - begin)
    return m


def _pool_infer(a, in_shapes):
    d = in_shapes[0]
    _check4(d, "AdaptiveAvgPooling2D")
    return [None if d is None else tuple(d[:2]) + _pool_size(a)]


def _pool_compute(ctx, a, data):
    _pool_infer(a, [data.shape])
    oh, ow = _pool_size(a)
    return _apply(ctx.xp, data, _pool_matrix(data.shape[2], oh), _pool_matrix(data.shape[3], ow))


register(OpDef(
    "_contrib_AdaptiveAvgPooling2D", inputs=("data",),
    attrs={"output_size": Attr("shape", (), doc="int (output size) or a tuple (height, width); () is 1.")},
    bounds={"output_size": (0, None)}, compute=_pool_compute, infer_shape=_pool_infer,
    grad=lambda F, a, ins, outs, og: [F._backward_contrib_AdaptiveAvgPooling2D(og[0], ins[0])], family="pool",
    doc="""Average pooling of ``data`` (N, C, H, W) to a fixed ``output_size`` (k or (h, w)): output cell i
averages input cells floor(i * H / h) .. ceil((i + 1) * H / h) along each axis."""))


def _pool_backward_infer(a, in_shapes):
    g, d = in_shapes
    _check4(g, "_backward_contrib_AdaptiveAvgPooling2D")
    _check4(d, "_backward_contrib_AdaptiveAvgPooling2D", 1)
    if g is not None and d is not None and tuple(g[:2]) != tuple(d[:2]):
        raise InferError(0, f"batch and channels {tuple(d[:2])} (the data's)", tuple(g))
    return [None if d is None else tuple(d)]


def _pool_backward_compute(ctx, a, ograd, data):
    _pool_backward_infer(a, [ograd.shape, data.shape])
    (h, w), (oh, ow) = data.shape[2:], ograd.shape[2:]
    return _apply_t(ctx.xp, ograd, _pool_matrix(h, oh), _pool_matrix(w, ow))


register(OpDef(
    "_backward_contrib_AdaptiveAvgPooling2D", inputs=("ograd", "data"), compute=_pool_backward_compute,
    infer_shape=_pool_backward_infer, infer_type=lambda a, d: [d[1] if d[1] is not None else d[0]],
    grad=lambda F, a, ins, outs, og: [F._contrib_AdaptiveAvgPooling2D(og[0], output_size=tuple(ins[0].shape[2:])),
                                      None],
    family="pool", hidden=True,
    doc="""Gradient of AdaptiveAvgPooling2D w.r.t. its data: each output gradient spread evenly over its
input cells; ``data`` gives the shape."""))
