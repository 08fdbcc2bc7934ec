"""Two more loss operators of MXNet 1.x: ``softmax_cross_entropy`` (a differentiable function) and
the loss layer ``SVMOutput`` (with its hidden gradient rule ``_backward_SVMOutput``).

``softmax_cross_entropy(data, label)``: data (n, k), labels (n,) (class indices, truncated to
integers); the output, of shape (1,), is the summed cross entropy ``-sum_i log(max(p_i, 1e-8))`` of
the softmax probabilities ``p_i`` of the labelled classes. Its gradient is
``(softmax(data) - one_hot(label)) * ograd``, written with registered ops; labels get none.

``SVMOutput(data, label, margin, regularization_coefficient, use_linear)`` follows
``SoftmaxOutput`` (``ops/loss_outputs.py``): identity in forward, and in backward a rule, not a
derivative: the head gradient is ignored and, with data flattened to (-1, k) and labels (data's
shape without the last axis, truncated to integers), the gradient of the L2-SVM loss
``2 * reg * (margin - x)`` for the labelled class when ``margin > x`` and ``2 * reg * (margin + x)``
for the others when ``margin > -x`` (the L1-SVM, ``use_linear``: ``-reg`` and ``reg``), 0 elsewhere.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[1, 2, 3], [11, 7, 5]])
    >>> [round(v, 5) for v in mx.nd.softmax_cross_entropy(x, mx.nd.array([2, 0])).asnumpy().tolist()]
    [0.42819]
    >>> x = mx.nd.array([[0.5, -0.2, 1.5]]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.SVMOutput(x, mx.nd.array([0]))
    >>> y.backward()
    >>> [round(v, 4) for v in x.grad.asnumpy()[0].tolist()]
    [-1.0, 1.6, 5.0]
"""
import numpy as np

from .attrs import Attr
from .infer import InferError, merge_shape
from .registry import OpDef, register


# ---- softmax_cross_entropy -----------------------------------------------------------------------
def _sce_infer(a, s):
    d, lab = s
    if d is not None and len(d) != 2:
        raise InferError(0, "2-d data (batch, classes)", tuple(d), "softmax_cross_entropy takes 2-d data only")
    if lab is not None and len(lab) != 1:
        raise InferError(1, "1-d labels (batch,)", tuple(lab), "softmax_cross_entropy takes 1-d labels only")
    if d is not None:
        merge_shape(s, 1, (d[0],), "one label per row of data")
    return [(1,)]


def _sce_compute(ctx, a, data, label):
    xp = ctx.xp
    _sce_infer(a, [data.shape, label.shape])
    n, k = data.shape
    e = xp.exp(data - data.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    lab = label.astype(np.int64)
    valid = (lab >= 0) & (lab < k)
    picked = p[xp.arange(n), xp.where(valid, lab, 0)]
    picked = xp.where(valid, picked, data.dtype.type(1))     # out-of-range labels add nothing
    tiny = data.dtype.type(1e-8)
    return (-xp.log(xp.maximum(picked, tiny)).sum()).reshape(1).astype(data.dtype)


def _sce_grad(F, a, ins, outs, og):
    data, label = ins
    target = F.one_hot(label, depth=data.shape[1], dtype=data.dtype)
    return [F.broadcast_mul(F.elemwise_sub(F.softmax(data, axis=-1), target), og[0]), None]


register(OpDef("softmax_cross_entropy", inputs=("data", "label"), family="loss",
               compute=_sce_compute, infer_shape=_sce_infer, infer_type=lambda a, d: [d[0]], grad=_sce_grad,
               doc="Summed cross entropy of softmax(data) (rows of 2-d data) and the 1-d class labels, "
                   "-sum log(max(p[label], 1e-8)), shape (1,). Gradient (softmax - one_hot(label)) * ograd; "
                   "labels get no gradient."))


# ---- SVMOutput -----------------------------------------------------------------------------------
_SVM_ATTRS = {
    "margin": Attr("float", 1.0, doc="The loss penalizes outputs that lie outside this margin."),
    "regularization_coefficient": Attr("float", 1.0, doc="Scales the gradient (the SVM's regularization "
                                                         "parameter)."),
    "use_linear": Attr("bool", False, doc="L1-SVM objective (the L2-SVM by default)."),
}


def _svm_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if not d:
        raise InferError(0, "data with a class axis (at least 1-d)", tuple(d))
    merge_shape(s, 1, tuple(d[:-1]), "labels of shape data.shape[:-1]")
    return [tuple(d)]


def _svm_backward(ctx, a, out, label):
    """The SVM gradient rule of MXNet's SVMOutput, from its output (= data) and labels."""
    xp = ctx.xp
    k = out.shape[-1]
    o = out.reshape(-1, k)
    lab = label.reshape(-1, 1).astype(np.int64)
    sign = xp.where(lab == xp.arange(k).reshape(1, k), -1, 1).astype(out.dtype)   # -1 on the labelled class
    slack = out.dtype.type(a["margin"]) + sign * o            # margin - x (labelled), margin + x (others)
    reg = out.dtype.type(a["regularization_coefficient"])
    if a["use_linear"]:
        g = sign * reg * (slack > 0).astype(out.dtype)
    else:
        g = sign * (2 * reg) * xp.maximum(slack, 0)
    return g.astype(out.dtype, copy=False).reshape(out.shape)


register(OpDef(
    "SVMOutput", family="loss", inputs=("data", "label"), attrs=dict(_SVM_ATTRS),
    compute=lambda ctx, a, data, label: data.copy(), infer_shape=_svm_infer, infer_type=lambda a, d: [d[0]],
    grad=lambda F, a, ins, outs, og: [F._backward_SVMOutput(outs[0], ins[1], **a), None],
    doc="Identity in forward; in backward the gradient of an SVM loss over the last axis (L2-SVM, or L1 with "
        "use_linear) for labels of shape data.shape[:-1], ignoring the head gradient. Labels get no gradient."))

register(OpDef(
    "_backward_SVMOutput", family="loss", hidden=True, inputs=("out", "label"), attrs=dict(_SVM_ATTRS),
    compute=_svm_backward, infer_shape=lambda a, s: [s[0]], infer_type=lambda a, d: [d[0]],
    no_grad_reason="a loss-layer gradient rule; MXNet defines no derivative of it",
    doc="The data gradient of SVMOutput from its output and labels."))
