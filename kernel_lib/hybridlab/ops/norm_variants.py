"""The BatchNorm variants of MXNet 1.9.1: ``BatchNorm_v1`` (the legacy operator) and
``_contrib_SyncBatchNorm`` (``mx.nd.contrib.SyncBatchNorm``, cross-device batch normalisation).

Both are ``BatchNorm`` (``ops/norm.py``, whose forward, gradient and moving-statistics update they
run) with the channel axis fixed at 1, no ``axis``/``cudnn_off`` attributes, and a different third
output: the VARIANCE of the statistics used (the biased batch variance in training, ``moving_var``
otherwise), where BatchNorm outputs the inverse standard deviation. SyncBatchNorm adds ``ndev`` (the
number of devices that share the batch statistics) and the required ``key`` (which layer's statistics
are shared); hybridlab runs every op on one device, so the statistics are those of the one batch and
the op is BatchNorm. In predict mode MXNet 1.9.1's SyncBatchNorm leaves its mean/var outputs
unwritten; here both variants output the moving statistics there, as BatchNorm_v1 does.

Unlike MXNet (which writes ones into ``gamma`` when ``fix_gamma``), ``gamma`` is never modified.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[1.0, 2.0], [3.0, 6.0]])
    >>> c = mx.nd.ones((2,)), mx.nd.zeros((2,)), mx.nd.zeros((2,)), mx.nd.ones((2,))
    >>> with mx.autograd.train_mode():
    ...     y, mean, var = mx.nd.contrib.SyncBatchNorm(x, *c, key="bn0", eps=0.0, output_mean_var=True)
    >>> y.asnumpy().tolist(), mean.asnumpy().tolist(), var.asnumpy().tolist()
    ([[-1.0, -1.0], [1.0, 1.0]], [2.0, 4.0], [1.0, 4.0])
"""
from .attrs import Attr
from .dtype_check import norm_param_dtypes
from .norm import _bn_forward, _bn_grad, _bn_infer, _bn_update_moving, _bn_updates_moving
from .registry import OpDef, SideEffect, get_op, register

__all__ = []

_BN = get_op("BatchNorm")
_ATTRS = {k: _BN.attrs[k] for k in ("eps", "momentum", "fix_gamma", "use_global_stats", "output_mean_var")}


def _bn_attrs(a):
    """The variant's attributes as BatchNorm's (the channel axis is 1)."""
    return dict(a, axis=1)


def _compute(ctx, a, x, gamma, beta, moving_mean, moving_var):
    out, mean, var, _ = _bn_forward(ctx, _bn_attrs(a), x, gamma, beta, moving_mean, moving_var)
    return out, mean.astype(gamma.dtype), var.astype(gamma.dtype)


def _infer(a, s):
    return _bn_infer(_bn_attrs(a), s)


def _grad(F, a, ins, outs, og, training):
    """BatchNorm's gradient, with the variance output (and its head gradient) as the inverse std."""
    b = _bn_attrs(a)
    inv_std = F.rsqrt(F._plus_scalar(outs[2], scalar=b["eps"]))
    # var = inv_std^-2 - eps: d var / d inv_std = -2 inv_std^-3
    og_inv_std = F.elemwise_mul(og[2], F._mul_scalar(F._power_scalar(inv_std, scalar=-3.0), scalar=-2.0))
    return _bn_grad(F, b, ins, [outs[0], outs[1], inv_std], [og[0], og[1], og_inv_std], training=training)


def _update_moving(a, mean, var, moving_mean, moving_var):
    """The moving statistics update of a training call (raw arrays), as BatchNorm's."""
    _bn_update_moving(a, mean, (var + var.dtype.type(a["eps"])) ** -0.5, moving_mean, moving_var)


def _register(name, attrs, npx=(), doc=""):
    register(OpDef(
        name, family="norm", npx=npx, needs_train=True, var_init=dict(_BN.var_init),
        inputs=_BN.inputs, aux=_BN.aux,
        num_outputs=3, num_visible=lambda a: 3 if a["output_mean_var"] else 1,
        output_names=lambda a: ("output", "mean", "var") if a["output_mean_var"] else ("output",),
        attrs=attrs, compute=_compute, infer_shape=_infer, infer_type=norm_param_dtypes(name),
        grad=_grad, grad_mode=True,
        train_side_effect=SideEffect(reads=(("output", 1), ("output", 2), ("input", 3), ("input", 4)),
                                     update=_update_moving, when=_bn_updates_moving,
                                     doc="moving statistics updated in place"),
        doc=doc))


_register("BatchNorm_v1", dict(_ATTRS), doc=(
    "The legacy batch normalisation over axis 1: BatchNorm(axis=1) whose outputs are output, mean, var "
    "(the last two hidden unless output_mean_var), var being the variance used (the biased batch "
    "variance in training, moving_var otherwise)."))

_register("_contrib_SyncBatchNorm", dict(_ATTRS, **{
    "ndev": Attr("int", 1, doc="The number of devices sharing the batch statistics (one here)."),
    "key": Attr("str", doc="Names the layer whose statistics the devices share (Block.prefix in Gluon).")}),
    doc=("Cross-device batch normalisation over axis 1; on one device it is BatchNorm_v1: outputs output, "
         "mean, var (the variance used; hidden unless output_mean_var). ndev and key name the devices "
         "that share the statistics."))
