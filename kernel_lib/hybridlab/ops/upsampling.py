"""``UpSampling`` (MXNet 1.9.1): nearest-neighbour upsampling of one or more NCHW inputs, or bilinear
upsampling as a grouped ``Deconvolution`` with a given weight.

* ``sample_type='nearest'``: inputs ``arg0..arg{num_args-1}``. The output is
  (N, C, H0 * scale, W0 * scale), H0/W0 those of the first input; every other input is repeated by
  (output size / its size), which must divide. ``multi_input_mode='concat'`` concatenates the upsampled
  inputs along the channels, ``'sum'`` adds them (equal channel counts). The gradient of each input is
  the sum of the output gradient over its repeat windows.
* ``sample_type='bilinear'``: inputs ``data`` and ``weight`` (C, 1, k, k) with k = 2*scale - scale % 2;
  computed exactly as MXNet does, as ``Deconvolution(kernel=(k, k), stride=(scale, scale),
  pad=ceil((scale-1)/2), num_filter=num_group=C, no_bias=True)``; gradients are those of that
  Deconvolution (data and weight). The weight is usually initialised with ``mx.init.Bilinear``.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> mx.nd.UpSampling(x, scale=2, sample_type='nearest').asnumpy()[0, 0].tolist()
    [[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0], [3.0, 3.0, 4.0, 4.0]]
    >>> mx.nd.UpSampling(x, mx.nd.ones((1, 1, 4, 4)), scale=2, sample_type='bilinear', num_filter=1).shape
    (1, 1, 4, 4)
"""
import math

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError, merge_shape
from .registry import OpDef, get_op, register

__all__ = []


class _UpSamplingOp(OpDef):
    """UpSampling's inputs depend on ``sample_type``: ``arg0..`` (nearest) or ``data, weight``."""

    def input_names(self, a):
        if a["sample_type"] == "bilinear":
            return ("data", "weight")
        return tuple(f"arg{i}" for i in range(a["num_args"]))


def _kernel(scale):
    return 2 * scale - scale % 2


def _deconv_attrs(a, channels):
    """The parsed Deconvolution attributes MXNet's GetDeconvolutionParam builds."""
    s, k = a["scale"], _kernel(a["scale"])
    nf = a["num_filter"] or channels
    if nf != channels:
        raise MXNetError(f"UpSampling: bilinear num_filter expected the data's channel count {channels} "
                         f"(or 0), got {nf}")
    p = math.ceil((s - 1) / 2)
    return get_op("Deconvolution").parse_attrs(dict(kernel=(k, k), stride=(s, s), pad=(p, p), num_filter=nf,
                                                    num_group=nf, no_bias=True, workspace=a["workspace"]))


def _input_scale(out_hw, shape, i):
    """Repeat factor of nearest input ``i`` (shape (N, C, h, w)) to reach ``out_hw``."""
    (oh, ow), (h, w) = out_hw, shape[2:]
    if not h or not w or oh % h or ow % w or oh // h != ow // w:
        raise InferError(i, f"(N, C, h, w) with h dividing {oh}, w dividing {ow} by the same factor",
                         tuple(shape), "nearest inputs are upsampled to the first input's size * scale")
    return oh // h


def _infer(a, s):
    scale = a["scale"]
    if scale < 1:
        raise InferError(0, f"a positive integer scale", f"scale={scale}")
    if a["sample_type"] == "nearest" and (a["num_args"] < 1 or len(s) != a["num_args"]):
        raise InferError(0, f"num_args={a['num_args']} >= 1 inputs for nearest upsampling", f"{len(s)} inputs")
    if a["sample_type"] == "bilinear":
        d = s[0]
        if d is None:
            return [None]
        if len(d) != 4:
            raise InferError(0, "4-D data (batch, channel, y, x)", tuple(d))
        k = _kernel(scale)
        merge_shape(s, 1, (d[1], 1, k, k), f"bilinear weight is (channels, 1, {k}, {k}) for scale={scale}")
        _deconv_attrs(a, d[1])
        return [(d[0], d[1], d[2] * scale, d[3] * scale)]
    if any(x is None for x in s):
        return [None]
    first = s[0]
    for i, d in enumerate(s):
        if len(d) != 4:
            raise InferError(i, "4-D data (batch, channel, y, x)", tuple(d))
    out_hw = (first[2] * scale, first[3] * scale)
    channels = 0
    for i, d in enumerate(s):
        _input_scale(out_hw, d, i)
        if d[0] != first[0]:
            raise InferError(i, f"batch size {first[0]} (like input 0)", tuple(d))
        if a["multi_input_mode"] == "sum":
            if channels and d[1] != channels:
                raise InferError(i, f"{channels} channels (multi_input_mode='sum' adds the inputs)", tuple(d))
            channels = d[1]
        else:
            channels += d[1]
    return [(first[0], channels) + out_hw]


def _nearest(xp, x, r):
    n, c, h, w = x.shape
    return xp.broadcast_to(x[:, :, :, None, :, None], (n, c, h, r, w, r)).reshape(n, c, h * r, w * r)


def _compute(ctx, a, *xs):
    xp = ctx.xp
    _infer(a, [x.shape for x in xs])
    if a["sample_type"] == "bilinear":
        return get_op("Deconvolution").compute(ctx, _deconv_attrs(a, xs[0].shape[1]), xs[0], xs[1])
    out_hw = (xs[0].shape[2] * a["scale"], xs[0].shape[3] * a["scale"])
    ups = [_nearest(xp, x, _input_scale(out_hw, x.shape, i)) for i, x in enumerate(xs)]
    if len(ups) == 1:
        return xp.ascontiguousarray(ups[0])
    if a["multi_input_mode"] == "sum":
        out = ups[0].copy()
        for u in ups[1:]:
            out += u
        return out
    return xp.concatenate(ups, axis=1)


def _window_sum(F, g, r):
    """Sum of ``g`` (N, C, H*r, W*r) over r x r windows: (N, C, H, W)."""
    n, c, hh, ww = g.shape
    return F.sum(F.Reshape(g, shape=(n, c, hh // r, r, ww // r, r)), axis=(3, 5))


def _grad(F, a, inputs, outputs, ograds, training):
    if a["sample_type"] == "bilinear":
        return get_op("Deconvolution").gradient(F, _deconv_attrs(a, inputs[0].shape[1]), inputs, outputs, ograds,
                                                training)
    g = ograds[0]
    out_hw = g.shape[2:]
    grads, begin = [], 0
    for i, x in enumerate(inputs):
        r = _input_scale(out_hw, x.shape, i)
        part = g
        if a["multi_input_mode"] != "sum" and len(inputs) > 1:
            part = F.slice_axis(g, axis=1, begin=begin, end=begin + x.shape[1])
            begin += x.shape[1]
        grads.append(_window_sum(F, part, r) if r > 1 else part)
    return grads


def _types(a, d):
    known = next((t for t in d if t is not None), None)
    for i, t in enumerate(d):
        if t is None:
            d[i] = known
        elif known is not None and t != known:
            raise MXNetError(f"UpSampling: every input expected dtype {known}, got {t} for input {i}")
    return [known]


register(_UpSamplingOp(
    "UpSampling", family="nn", variadic=True, inputs=(), all_inputs=("data", "weight"),
    var_init={"weight": '["bilinear", {}]'},
    attrs={"scale": Attr("int", doc="Up sampling scale."),
           "num_filter": Attr("int", 0, doc="Bilinear only: the number of channels (the Deconvolution's "
                                             "num_filter and num_group); 0 means the data's channels."),
           "sample_type": Attr("enum", choices=("bilinear", "nearest"), doc="Upsampling method."),
           "multi_input_mode": Attr("enum", "concat", choices=("concat", "sum"),
                                    doc="Nearest with several inputs: concatenate along the channels or add."),
           "num_args": Attr("int", 1, doc="Number of inputs: 1..N for nearest; bilinear takes data and weight."),
           "workspace": Attr("int", 512, doc="Accepted for compatibility; unused.")},
    bounds={"scale": (1, None), "num_args": (1, None), "workspace": (0, None)},
    compute=_compute, infer_shape=_infer, infer_type=_types, grad=_grad, grad_mode=True,
    doc="Nearest-neighbour (one or more inputs, concatenated or summed) or bilinear (Deconvolution with "
        "a (C, 1, k, k) weight, k = 2*scale - scale%2) upsampling of NCHW data by an integer ``scale``."))
