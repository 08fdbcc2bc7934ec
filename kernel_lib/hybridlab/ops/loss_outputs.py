"""Loss-layer operators of MXNet 1.x's symbolic API: ``SoftmaxOutput`` (alias ``Softmax``), the
regression outputs and ``MakeLoss``.

Their forward passes are ordinary functions (softmax, identity, sigmoid), but their backward passes are
*rules*, not derivatives of the forward: the head gradient is ignored (unless ``out_grad``) and the
gradient of the data is, e.g., ``(softmax - one_hot(label)) * grad_scale``. Labels get no gradient.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[1.0, 2.0]]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.SoftmaxOutput(x, mx.nd.array([1]))
    >>> y.backward()
    >>> [round(v, 4) for v in x.grad.asnumpy()[0].tolist()]
    [0.2689, -0.2689]
"""
import numpy as onp

from .attrs import Attr
from .infer import InferError, merge_shape, prod, unary_shape
from .registry import OpDef, register

_NORMS = ("batch", "null", "valid")

# ---- SoftmaxOutput ----------------------------------------------------------------------------------
_SOFTMAX_OUTPUT_ATTRS = {
    "grad_scale": Attr("float", 1.0, doc="Scales the gradient by a float factor."),
    "ignore_label": Attr("float", -1.0, doc="Label value ignored in backward when use_ignore is set."),
    "multi_output": Attr("bool", False, doc="Softmax along axis 1 of (n, k, ...) with labels (n, ...)."),
    "use_ignore": Attr("bool", False, doc="Give instances labelled ``ignore_label`` no gradient."),
    "preserve_shape": Attr("bool", False, doc="Softmax along the last axis (instead of over all but axis 0)."),
    "normalization": Attr("enum", "null", choices=_NORMS,
                          doc="Gradient normalisation: null (none), batch (/ batch size), valid "
                              "(/ number of labels that are not ignore_label)."),
    "out_grad": Attr("bool", False, doc="Multiply the gradient by the head gradient."),
    "smooth_alpha": Attr("float", 0.0, doc="Label smoothing: the target is 1-alpha for the label and "
                                           "alpha/(k-1) for the other classes."),
}


def _softmax_rows(xp, x, axis):
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _softmax_output_compute(ctx, a, data, label):
    xp = ctx.xp
    if a["multi_output"]:
        return _softmax_rows(xp, data, 1)
    if a["preserve_shape"]:
        return _softmax_rows(xp, data, -1)
    return _softmax_rows(xp, data.reshape(data.shape[0], -1), 1).reshape(data.shape)


def _softmax_output_infer(a, s):
    d, lab = s[0], s[1]
    if d is None:
        return [None]
    if lab is not None and tuple(lab) == tuple(d):
        return [d]  # probabilities as labels
    if a["multi_output"]:
        if len(d) < 2:
            raise InferError(0, "(n, k, ...): at least 2 dimensions", d, "multi_output")
        options = [(d[0], prod(d[2:])), (d[0],) + tuple(d[2:]), (d[0], 1) + tuple(d[2:])]
        if lab is None:
            s[1] = options[0]
        elif tuple(lab) not in options:
            raise InferError(1, " or ".join(map(str, options)), lab, "labels of a multi_output SoftmaxOutput")
    else:  # MXNet asks for data.shape[:-1] labels even when the softmax is over all but axis 0
        merge_shape(s, 1, tuple(d[:-1]), "labels of shape data.shape[:-1] (or probabilities of data's shape)")
    return [d]


def _softmax_output_backward(ctx, a, out, label, ograd):
    """(softmax - target) * grad_scale / normaliser [* ograd], as MXNet's SoftmaxOutput backward."""
    xp = ctx.xp
    scale = a["grad_scale"]
    if label.shape == out.shape:
        g = (out - label) * out.dtype.type(scale)
        return g * ograd if a["out_grad"] else g
    if a["multi_output"]:
        n, k = out.shape[0], out.shape[1]
        o = out.reshape(n, k, -1)
        lab = label.reshape(n, -1)
        classes = xp.arange(k).reshape(1, k, 1)
        lab_b = lab.reshape(n, 1, -1)
        spatial = o.shape[2]
    else:
        k = out.shape[-1] if a["preserve_shape"] else out.size // out.shape[0]
        o = out.reshape(-1, k)
        lab = label.reshape(-1)
        classes = xp.arange(k).reshape(1, k)
        # as MXNet: row i of the flattened (n, k) softmax takes the i-th label; with data of > 2 dims
        # (labels data.shape[:-1]) the labels past row n are unused but still count for normalization
        lab_b = lab[:o.shape[0]].reshape(-1, 1)
        spatial = 1
    onehot = (classes == lab_b.astype(onp.int64)).astype(out.dtype)
    alpha = a["smooth_alpha"]
    if alpha > 0:
        target = onehot * out.dtype.type(1.0 - alpha) + (1 - onehot) * out.dtype.type(alpha / max(k - 1, 1))
    else:
        target = onehot
    g = o - target
    ignored = lab_b.astype(onp.int64) == int(a["ignore_label"])
    if a["use_ignore"]:
        g = g * (1 - ignored).astype(out.dtype)
    if a["normalization"] == "batch":
        count = lab.shape[0]
    elif a["normalization"] == "valid":
        count = max(int(lab.size - int((lab.astype(onp.int64) == int(a["ignore_label"])).sum())), 1)
    else:
        count = 1
    denom = count * (spatial if a["multi_output"] and a["normalization"] != "valid" else 1)
    g = (g * out.dtype.type(scale / denom)).reshape(out.shape)
    return g * ograd if a["out_grad"] else g


register(OpDef(
    "SoftmaxOutput", aliases=("Softmax",), family="loss", inputs=("data", "label"),
    attrs=dict(_SOFTMAX_OUTPUT_ATTRS), bounds={"smooth_alpha": (0, 1)},   # MXNet's range
    compute=_softmax_output_compute, infer_shape=_softmax_output_infer,
    grad=lambda F, a, ins, outs, og: [F._backward_SoftmaxOutput(outs[0], ins[1], og[0], **a), None],
    doc="Softmax in forward (over all but axis 0; along axis 1 with multi_output; along the last axis "
        "with preserve_shape); labels have shape data.shape[:-1] (row i of the (N, -1) softmax takes the "
        "i-th label, as in MXNet); in backward the gradient of a cross-entropy loss, "
        "(softmax - one_hot(label)) * grad_scale / normaliser, ignoring the head gradient unless "
        "out_grad. Labels (class indices, or probabilities of data's shape) get no gradient."))

register(OpDef(
    "_backward_SoftmaxOutput", family="loss", hidden=True, inputs=("out", "label", "ograd"),
    attrs=dict(_SOFTMAX_OUTPUT_ATTRS), bounds={"smooth_alpha": (0, 1)}, compute=_softmax_output_backward,
    infer_shape=lambda a, s: [s[0]], infer_type=lambda a, d: [d[0]],
    no_grad_reason="a loss-layer gradient rule; MXNet defines no derivative of it",
    doc="The data gradient of SoftmaxOutput from its output, label and head gradient."))


# ---- regression outputs -----------------------------------------------------------------------------
def _regression_infer(a, s):
    d, lab = s[0], s[1]
    if d is None:
        return [None]
    if lab is None:
        s[1] = (d[0],) if len(d) == 2 and d[1] == 1 else tuple(d)
    elif not lab or lab[0] != d[0] or prod(lab) != prod(d):
        raise InferError(1, f"{tuple(d)} (or a shape with {d[0]} rows and {prod(d)} elements)", lab,
                         "one label per output value")
    return [d]


def _regression(name, forward, rule, doc):
    def gradient(F, a, ins, outs, og):
        out, label = outs[0], ins[1]
        lab = label if label.shape == out.shape else F.reshape_like(label, out)
        num_output = label.size // label.shape[0] if label.ndim else 1
        return [F._mul_scalar(rule(F, F.elemwise_sub(out, lab)), scalar=a["grad_scale"] / num_output), None]

    register(OpDef(
        name, family="loss", inputs=("data", "label"),
        attrs={"grad_scale": Attr("float", 1.0, doc="Scale the gradient by a float factor.")},
        compute=lambda ctx, a, x, label: forward(ctx.xp, x), infer_shape=_regression_infer,
        grad=gradient, doc=doc))


_regression("LinearRegressionOutput", lambda xp, x: x.copy(), lambda F, d: d,
            "Identity in forward; in backward the gradient of a squared loss, (out - label) * "
            "grad_scale / (outputs per instance), ignoring the head gradient. Labels get no gradient.")
_regression("LogisticRegressionOutput",
            lambda xp, x: (1 / (1 + xp.exp(-x))).astype(x.dtype, copy=False), lambda F, d: d,
            "Sigmoid in forward; in backward the gradient of a logistic loss, (out - label) * "
            "grad_scale / (outputs per instance), ignoring the head gradient. Labels get no gradient.")
_regression("MAERegressionOutput", lambda xp, x: x.copy(), lambda F, d: F.sign(d),
            "Identity in forward; in backward the gradient of an absolute loss, sign(out - label) * "
            "grad_scale / (outputs per instance), ignoring the head gradient. Labels get no gradient.")


# ---- MakeLoss ---------------------------------------------------------------------------------------
def _make_loss_grad(F, a, ins, outs, og):
    x = ins[0]
    ones = F.ones_like(x)
    if a["normalization"] == "valid":  # grad_scale / max(1, #(x > valid_thresh))
        count = F._maximum_scalar(F.sum(F._greater_scalar(x, scalar=a["valid_thresh"])), scalar=1.0)
        return [F.broadcast_mul(ones, F._rdiv_scalar(count, scalar=a["grad_scale"]))]
    scale = a["grad_scale"] / (x.shape[0] if a["normalization"] == "batch" else 1)
    return [F._mul_scalar(ones, scalar=scale)]


register(OpDef(
    "MakeLoss", aliases=("make_loss",), family="loss",
    attrs={"grad_scale": Attr("float", 1.0, doc="Gradient scale."),
           "valid_thresh": Attr("float", 0.0, doc="Elements above this count as valid (normalization='valid')."),
           "normalization": Attr("enum", "null", choices=_NORMS,
                                 doc="null: no normalisation; batch: / batch size; valid: / number of "
                                     "elements above valid_thresh.")},
    compute=lambda ctx, a, x: x.copy(), infer_shape=unary_shape, grad=_make_loss_grad,
    doc="Turns any expression into a loss: identity in forward; in backward the gradient is grad_scale "
        "(divided by the batch size or the number of valid elements), whatever the head gradient."))
