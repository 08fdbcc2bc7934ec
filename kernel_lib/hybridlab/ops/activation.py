"""Activation operators with attributes: ``Activation``, ``LeakyReLU`` (leaky, prelu, elu, selu, gelu,
rrelu), the softmax family (``softmax``, ``log_softmax``, ``softmin``, ``SoftmaxActivation``) and the
hidden ``_length_mask`` used by the masked (``use_length``) softmax gradients.

Gradients are written with registered ops (``F``), so they can be recorded again (higher order).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[1.0, 2.0, 3.0]])
    >>> [round(v, 4) for v in mx.nd.softmax(x).asnumpy()[0].tolist()]
    [0.09, 0.2447, 0.6652]
    >>> mx.nd.LeakyReLU(mx.nd.array([-2.0, 1.0]), act_type="leaky", slope=0.1).asnumpy().tolist()
    [-0.20000000298023224, 1.0]
"""
import math

import numpy as onp

from .attrs import Attr
from .elemwise import sigmoid, softplus
from .elemwise_special import erf64
from .infer import InferError, merge_shape, normalize_axis, same_shape, unary_shape
from .index import _pick_shapes, axis_grid, normalize_index
from .registry import InlineRule, InputFusion, OpDef, OutKernel, register
from .relu_cpu import negative_part, relu, relu_expression
from .select_cpu import select
from .short_axis import reduce_last

__all__ = ["erf", "softmax_forward"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946
_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def erf(xp, x):
    """Error function of ``x`` in its dtype (the ``erf`` op's float64 Cephes kernel)."""
    return erf64(xp, x).astype(x.dtype, copy=False)


# ---- Activation ------------------------------------------------------------------------------------
def _act_forward(xp, x, act):
    if act == "relu":
        return relu(xp, x)
    if act == "sigmoid":
        return sigmoid(xp, x)
    if act == "tanh":
        return xp.tanh(x)
    if act == "softrelu":  # MXNet: x > 20 ? x : log1p(exp(x))
        return softplus(xp, x)
    return x / (1 + xp.abs(x))  # softsign


def _act_grad(F, a, ins, outs, og):
    x, y, g = ins[0], outs[0], og[0]
    act = a["act_type"]
    if act == "relu":  # from the output, as MXNet: the forward need not keep its input for it
        return [F._backward_relu(g, y)]
    if act == "sigmoid":  # y (1 - y)
        return [F.elemwise_mul(g, F.elemwise_mul(y, F._rminus_scalar(y, scalar=1.0)))]
    if act == "tanh":  # 1 - y^2
        return [F.elemwise_mul(g, F._rminus_scalar(F.square(y), scalar=1.0))]
    if act == "softrelu":  # sigmoid(x)
        return [F.elemwise_mul(g, F.sigmoid(x))]
    return [F.elemwise_div(g, F.square(F._plus_scalar(F.abs(x), scalar=1.0)))]  # softsign


def _act_out(ctx, a, out, x):
    """The out kernel of relu and tanh (the activations of one ufunc call)."""
    if a["act_type"] == "relu":
        return relu(ctx.xp, x, out=out)
    return ctx.xp.tanh(x, out=out)


def _act_inline(a, site):
    return relu_expression(a, site) if a["act_type"] == "relu" else None


register(OpDef(
    "Activation", family="nn", npx="activation", monotone=lambda a: a["act_type"] == "relu",
    out_kernel=OutKernel(_act_out, applies=lambda a: a["act_type"] in ("relu", "tanh"), inplace=True),
    inline=InlineRule(_act_inline, functions=(onp.maximum,), inplace=True), elementwise_activation=lambda a: a["act_type"],
    attrs={"act_type": Attr("enum", choices=("relu", "sigmoid", "softrelu", "softsign", "tanh"),
                            doc="Activation function to apply.")},
    compute=lambda ctx, a, x: _act_forward(ctx.xp, x, a["act_type"]).astype(x.dtype, copy=False),
    infer_shape=unary_shape, grad=_act_grad,
    doc="Elementwise activation: relu max(x, 0), sigmoid 1/(1+exp(-x)), tanh, softrelu log(1+exp(x)), "
        "softsign x/(1+|x|)."))


# ---- LeakyReLU --------------------------------------------------------------------------------------
def _gamma_shape(dshape, gshape):
    """The shape prelu's ``gamma`` broadcasts as against data of ``dshape`` (MXNet's expand_shape):
    gamma's axes, right-aligned, fill data axes 1 and 0 where they match (or are 1), every other axis
    is 1. ``(4,)`` on ``(3, 4, 5, 5)``: ``(1, 4, 1, 1)``; ``(3, 4)`` on ``(3, 4)``: itself."""
    out, s = [1] * len(dshape), len(gshape) - 1
    for i in range(len(dshape) - 1, -1, -1):
        if s >= 0 and i <= 1 and gshape[s] in (dshape[i], 1):
            out[i] = gshape[s]
            s -= 1
    if s != -1:
        raise InferError(1, f"a gamma that broadcasts to axes 0 and 1 of data {tuple(dshape)}", tuple(gshape),
                         "prelu slopes per channel, per element of the first two axes, or one shared")
    return tuple(out)


def _uniform01(rng, size):
    return rng.random(size) if hasattr(rng, "integers") else rng.random_sample(size)


def _leaky_compute(ctx, a, x, gamma=None):
    # x where x > 0, else f(x): written max(x, 0) + f(min(x, 0)), exact because f(0) = 0, and
    # branch-free (``where`` on random signs mispredicts a branch per element: ~5x slower)
    xp, act = ctx.xp, a["act_type"]
    if act == "leaky":
        return relu(xp, x) + x.dtype.type(a["slope"]) * negative_part(xp, x)
    if act == "prelu":
        g = gamma.reshape(_gamma_shape(x.shape, gamma.shape))
        return (relu(xp, x) + g * negative_part(xp, x)).astype(x.dtype, copy=False)
    if act == "elu":
        return relu(xp, x) + x.dtype.type(a["slope"]) * xp.expm1(negative_part(xp, x))
    if act == "selu":
        neg = x.dtype.type(_SELU_ALPHA) * xp.expm1(negative_part(xp, x))
        return x.dtype.type(_SELU_LAMBDA) * (relu(xp, x) + neg)
    if act == "gelu":
        return (0.5 * x * (1 + erf(xp, x * x.dtype.type(_SQRT1_2)))).astype(x.dtype, copy=False)
    # rrelu: a random slope per element in training, kept as the mask output; the mean slope otherwise,
    # where MXNet leaves the mask unwritten (it reads as zeros)
    lo, hi = a["lower_bound"], a["upper_bound"]
    if ctx.is_train:
        mask = (lo + (hi - lo) * _uniform01(ctx.rng, x.shape)).astype(x.dtype)
        return relu(xp, x) + mask * negative_part(xp, x), mask
    out = relu(xp, x) + x.dtype.type((lo + hi) / 2.0) * negative_part(xp, x)
    return out, xp.zeros_like(x)


def _leaky_grad(F, a, ins, outs, og, training):
    x, y, g = ins[0], outs[0], og[0]
    act = a["act_type"]
    pos = F._greater_scalar(x, scalar=0.0)
    if act == "leaky":
        return [F.where(pos, g, F._mul_scalar(g, scalar=a["slope"]))]
    if act == "rrelu":  # the forward's mode: it used the random slopes only in training
        if training:
            return [F.where(pos, g, F.elemwise_mul(g, outs[1]))]
        return [F.where(pos, g, F._mul_scalar(g, scalar=(a["lower_bound"] + a["upper_bound"]) / 2.0))]
    if act == "elu":  # slope * exp(x) = y + slope for x <= 0
        return [F.where(pos, g, F.elemwise_mul(g, F._plus_scalar(y, scalar=a["slope"])))]
    if act == "selu":  # lambda * alpha * exp(x) = y + lambda * alpha for x <= 0
        return [F.where(pos, F._mul_scalar(g, scalar=_SELU_LAMBDA),
                        F.elemwise_mul(g, F._plus_scalar(y, scalar=_SELU_LAMBDA * _SELU_ALPHA)))]
    if act == "gelu":  # Phi(x) + x phi(x)
        cdf = F._mul_scalar(F._plus_scalar(F.erf(F._mul_scalar(x, scalar=_SQRT1_2)), scalar=1.0), scalar=0.5)
        pdf_x = F._mul_scalar(F.elemwise_mul(x, F.exp(F._mul_scalar(F.square(x), scalar=-0.5))),
                              scalar=_INV_SQRT_2PI)
        return [F.elemwise_mul(g, F.elemwise_add(cdf, pdf_x))]
    # prelu
    gamma = ins[1]
    shape = _gamma_shape(x.shape, gamma.shape)
    dx = F.where(pos, g, F.broadcast_mul(g, F.Reshape(gamma, shape=shape)))
    neg_part = F.where(pos, F.zeros_like(x), F.elemwise_mul(g, x))
    axes = tuple(i for i in range(x.ndim) if shape[i] == 1 and x.shape[i] != 1)
    dgamma = F.sum(neg_part, axis=axes, keepdims=True) if axes else neg_part
    return [dx, F.Reshape(dgamma, shape=tuple(gamma.shape))]


def _leaky_infer(a, s):
    d = s[0]
    if a["act_type"] == "prelu" and d is not None:
        if s[1] is None:
            s[1] = (d[1] if len(d) > 1 else d[0],)
        elif 0 not in s[1] and 0 not in d:
            _gamma_shape(d, s[1])
    return [d, d] if a["act_type"] == "rrelu" else [d]


def _same_n(n):
    def infer_type(a, dtypes):
        known = next((d for d in dtypes if d is not None), None)
        for i, d in enumerate(dtypes):
            if d is None:
                dtypes[i] = known
        return [known] * (n(a) if callable(n) else n)
    return infer_type


register(OpDef(
    "LeakyReLU", family="nn", npx="leaky_relu", needs_train=True, needs_rng=True,
    var_init={"gamma": '["Constant", {"value": 0.25}]'},
    inputs=lambda a: ("data", "gamma") if a["act_type"] == "prelu" else ("data",),
    all_inputs=("data", "gamma"),
    num_outputs=lambda a: 2 if a["act_type"] == "rrelu" else 1,   # rrelu: output and mask, both visible
    output_names=lambda a: ("output", "mask") if a["act_type"] == "rrelu" else ("output",),
    attrs={"act_type": Attr("enum", "leaky", choices=("elu", "gelu", "leaky", "prelu", "rrelu", "selu"),
                            doc="Activation function to be applied."),
           "slope": Attr("float", 0.25, doc="Slope (leaky, elu)."),
           "lower_bound": Attr("float", 0.125, doc="Lower bound of the random slope (rrelu)."),
           "upper_bound": Attr("float", 0.334, doc="Upper bound of the random slope (rrelu).")},
    compute=_leaky_compute, infer_shape=_leaky_infer,
    infer_type=_same_n(lambda a: 2 if a["act_type"] == "rrelu" else 1), grad=_leaky_grad, grad_mode=True,
    doc="Leaky ReLU variants: leaky x>0 ? x : slope*x; prelu with a learned per-channel slope ``gamma`` "
        "(shape (C,) along axis 1, or (1,)); elu slope*(exp(x)-1) for x<=0; selu; gelu "
        "0.5*x*(1+erf(x/sqrt(2))); rrelu: a random slope in [lower_bound, upper_bound) per element in "
        "training, (lower_bound+upper_bound)/2 otherwise, and (as in MXNet) two outputs: the result and "
        "the ``mask`` of slopes (zeros outside training)."))


# ---- softmax family ---------------------------------------------------------------------------------
def softmax_forward(xp, x, axis, temperature=None, log=False, length=None):
    """Softmax (or log-softmax) of ``x`` along ``axis``; positions at or past ``length`` are 0."""
    if x.size == 0:      # zero-size input: an empty result of the same shape (as MXNet)
        return xp.zeros(x.shape, x.dtype)
    if temperature is not None and temperature != 1.0:
        x = x / x.dtype.type(temperature)
    mask = None
    if length is not None:
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        mask = xp.arange(x.shape[axis]).reshape(shape) < xp.expand_dims(length, axis)
        x = select(xp, mask, x, x.dtype.type(-onp.inf))
    last = axis == x.ndim - 1      # (a short last axis: reduced column by column, ops/short_axis.py)
    m = reduce_last(onp.maximum, x) if last else None
    if m is None:
        m = x.max(axis=axis, keepdims=True)
    if mask is not None:
        m = select(xp, xp.isfinite(m), m, x.dtype.type(0))
    z = x - m
    e = xp.exp(z)
    s = reduce_last(onp.add, e) if last else None
    if s is None:
        s = e.sum(axis=axis, keepdims=True)
    if mask is not None:
        s = select(xp, s == 0, x.dtype.type(1), s)
    if e.dtype != s.dtype or z.dtype != s.dtype:
        out = z - xp.log(s) if log else e / s
    elif log:       # (z, e and s are this call's own arrays of one dtype: written in place)
        out = xp.subtract(z, xp.log(s, out=s), out=z)
    else:
        out = xp.divide(e, s, out=e)
    if mask is not None:
        out = select(xp, mask, out, x.dtype.type(0))
    return out


def _softmax_infer(a, s):
    d = s[0]
    if d is not None and a["use_length"]:
        ax = normalize_axis(a["axis"], len(d))
        merge_shape(s, 1, d[:ax] + d[ax + 1:], f"one length per softmax row (axis={a['axis']})")
    return [d]


def _softmax_type(a, dtypes):
    return [onp.dtype(a["dtype"]) if a["dtype"] is not None else dtypes[0]]


def _softmax_op(name, log, negate, npx, doc):
    def compute(ctx, a, x, length=None):
        xp = ctx.xp
        if a["dtype"] is not None:
            x = x.astype(a["dtype"], copy=False)
        ax = normalize_axis(a["axis"], x.ndim)
        return softmax_forward(xp, -x if negate else x, ax, a["temperature"], log, length)

    def gradient(F, a, ins, outs, og):
        x, y, g = ins[0], outs[0], og[0]
        ax = a["axis"]
        mask = F._length_mask(y, ins[1], axis=ax) if a["use_length"] else None
        if log and mask is None:  # d log_softmax: g - exp(y) * sum(g), one op as in MXNet
            dx = F._backward_log_softmax(g, y, axis=ax)
        elif log:
            if mask is not None:
                g = F.elemwise_mul(g, mask)
            dx = F.elemwise_sub(g, F.broadcast_mul(F.exp(y), F.sum(g, axis=ax, keepdims=True)))
            if mask is not None:
                dx = F.elemwise_mul(dx, mask)
        else:  # d softmax: y * (g - sum(g * y))
            dx = F.elemwise_mul(y, F.broadcast_sub(g, F.sum(F.elemwise_mul(g, y), axis=ax, keepdims=True)))
        scale = (-1.0 if negate else 1.0) / (a["temperature"] if a["temperature"] is not None else 1.0)
        if scale != 1.0:
            dx = F._mul_scalar(dx, scalar=scale)
        if a["dtype"] is not None and onp.dtype(a["dtype"]) != x.dtype:
            dx = F.Cast(dx, dtype=x.dtype)
        return [dx, None] if a["use_length"] else [dx]

    register(OpDef(
        name, family="nn", npx=npx,
        inputs=lambda a: ("data", "length") if a["use_length"] else ("data",), all_inputs=("data", "length"),
        attrs={"axis": Attr("int", -1, doc="The axis along which to compute softmax."),
               "temperature": Attr("float?", None, doc="Temperature parameter in softmax."),
               "dtype": Attr("dtype?", None, choices=("float16", "float32", "float64"),
                             doc="Output dtype (default: the input's)."),
               "use_length": Attr("bool?", False, doc="Use the ``length`` input to mask each row.")},
        compute=compute, infer_shape=_softmax_infer, infer_type=_softmax_type, grad=gradient, doc=doc))


_softmax_op("softmax", False, False, "softmax",
            "exp(x/T) / sum(exp(x/T)) along ``axis``. With ``use_length`` only the first ``length`` "
            "entries of each row take part; the rest are 0.")
_softmax_op("log_softmax", True, False, "log_softmax",
            "log(softmax(x)) along ``axis``, computed stably. With ``use_length`` masked entries are 0.")
_softmax_op("softmin", False, True, (),
            "softmax(-x) along ``axis``: small values get large probabilities.")


def _backward_log_softmax_compute(ctx, a, g, y):
    xp = ctx.xp
    ax = normalize_axis(a["axis"], g.ndim)
    s = reduce_last(onp.add, g) if ax == g.ndim - 1 else None
    if s is None:
        s = g.sum(axis=ax, keepdims=True)
    return g - xp.exp(y) * s


def _backward_log_softmax_grad(F, a, ins, outs, og):
    g, y = ins
    h, ax = og[0], a["axis"]
    hp = F.elemwise_mul(h, F.exp(y))
    return [F.broadcast_sub(h, F.sum(hp, axis=ax, keepdims=True)),
            F.negative(F.broadcast_mul(hp, F.sum(g, axis=ax, keepdims=True)))]


def _pick_log_softmax_attrs(a, pick_a, shapes):
    """The fused call's attributes (pick's) when pick's data is log_softmax's output along the same
    axis (shapes: ograd, index, data, output), else ``None``."""
    data, out = shapes[2], shapes[3]
    if data is None or out is None or tuple(data) != tuple(out) or pick_a["axis"] is None or not out:
        return None
    try:
        if normalize_axis(a["axis"], len(out)) != normalize_axis(pick_a["axis"], len(out)):
            return None
    except InferError:
        return None
    return {"axis": pick_a["axis"], "keepdims": pick_a["keepdims"], "mode": pick_a["mode"]}


register(OpDef(
    "_backward_log_softmax", family="nn", hidden=True, inputs=("ograd", "output"),
    attrs={"axis": Attr("int", -1, doc="The softmax axis.")},
    compute=_backward_log_softmax_compute, infer_shape=same_shape, grad=_backward_log_softmax_grad,
    input_fusion=InputFusion("_backward_pick", "_backward_pick_log_softmax", _pick_log_softmax_attrs),
    doc="Gradient of log_softmax from its output: ``ograd - exp(output) * sum(ograd, axis)``."))


def _backward_pick_log_softmax_compute(ctx, a, og, idx, data, y):
    # _backward_log_softmax(_backward_pick(og, idx, data), y) with the sum along the axis of the
    # picked gradient known (og itself): -exp(y) * og everywhere, og added at the picked positions
    # (the same values, up to the sign of zeros)
    xp = ctx.xp
    ax, keep, _ = _pick_shapes(a, y.shape)
    og = og.reshape(keep)
    res = xp.exp(y) * og
    xp.negative(res, out=res)
    idx = normalize_index(xp, idx, y.shape[ax], a["mode"], "pick").reshape(keep)
    res[axis_grid(xp, idx, ax)] += og
    return res


def _backward_pick_log_softmax_grad(F, a, ins, outs, og):
    g, idx, _, y = ins
    h, ax, keep = og[0], a["axis"], a["keepdims"]
    he = F.elemwise_mul(h, F.exp(y))
    dg = F.elemwise_sub(F.pick(h, idx, axis=ax, keepdims=keep, mode=a["mode"]), F.sum(he, axis=ax, keepdims=keep))
    dy = F.negative(F.broadcast_mul(he, g if keep else F.expand_dims(g, axis=ax)))
    return [dg, None, None, dy]


register(OpDef(
    "_backward_pick_log_softmax", family="nn", hidden=True, inputs=("ograd", "index", "data", "output"),
    attrs={"axis": Attr("int", -1, doc="The picked (and softmax) axis."),
           "keepdims": Attr("bool", False, doc="Whether ograd keeps the picked axis (as 1)."),
           "mode": Attr("enum", "clip", choices=("clip", "wrap"), doc="Out-of-range indices: clip or wrap.")},
    compute=_backward_pick_log_softmax_compute, grad=_backward_pick_log_softmax_grad,
    infer_shape=lambda a, s: [None if s[3] is None else tuple(s[3])],
    doc="Gradient of ``pick(log_softmax(x), index)`` from log_softmax's output in one call (softmax "
        "cross-entropy's): ``_backward_log_softmax(_backward_pick(ograd, index, data), output)``, "
        "which backward graphs fuse into it (``InputFusion``)."))


def _length_mask_compute(ctx, a, x, length):
    xp = ctx.xp
    ax = normalize_axis(a["axis"], x.ndim)
    shape = [1] * x.ndim
    shape[ax] = x.shape[ax]
    mask = xp.arange(x.shape[ax]).reshape(shape) < xp.expand_dims(length, ax)
    return xp.broadcast_to(mask, x.shape).astype(x.dtype)


register(OpDef(
    "_length_mask", family="nn", hidden=True, inputs=("data", "length"),
    attrs={"axis": Attr("int", -1, doc="The masked axis.")},
    compute=_length_mask_compute,
    infer_shape=lambda a, s: _softmax_infer({"axis": a["axis"], "use_length": True}, s),
    infer_type=lambda a, d: [d[0]], no_grad_reason="a 0/1 mask: piecewise constant",
    doc="1 where the index along ``axis`` is below ``length`` (one length per row), else 0; in the dtype "
        "of ``data`` (the masked softmax gradients use it)."))


def _softmax_activation_axis(a):
    """MXNet's instance mode views the data as 2-D keeping the LAST axis (mshadow's FlatTo2D), so it is
    a softmax over the last axis, not over all but axis 0."""
    return 1 if a["mode"] == "channel" else -1


def _softmax_activation_compute(ctx, a, x):
    return softmax_forward(ctx.xp, x, normalize_axis(_softmax_activation_axis(a), x.ndim))


def _softmax_activation_grad(F, a, ins, outs, og):
    # the derivative of the forward. (MXNet 1.9's instance-mode backward on > 2-D data sums over axis 1,
    # which is not the derivative of its own last-axis forward.)
    y, g = outs[0], og[0]
    axis = _softmax_activation_axis(a)
    return [F.elemwise_mul(y, F.broadcast_sub(g, F.sum(F.elemwise_mul(g, y), axis=axis, keepdims=True)))]


register(OpDef(
    "SoftmaxActivation", family="nn",
    attrs={"mode": Attr("enum", "instance", choices=("channel", "instance"),
                        doc="instance: softmax over the last axis; channel: over axis 1.")},
    compute=_softmax_activation_compute, infer_shape=unary_shape, grad=_softmax_activation_grad,
    doc="Softmax over the last axis (mode='instance'; for 2-D data, of each instance, as MXNet) or across "
        "channels (axis 1, mode='channel'). "
        "Deprecated in MXNet in favour of ``softmax``."))
