"""MXNet 1.9.1's optimizer update operators, SGD family: ``sgd_update``, ``sgd_mom_update``,
``mp_sgd_update``, ``mp_sgd_mom_update``, ``nag_mom_update``, ``mp_nag_mom_update``,
``signsgd_update``, ``signum_update`` and the multi-tensor ``multi_sgd_update``,
``multi_sgd_mom_update``, ``multi_mp_sgd_update``, ``multi_mp_sgd_mom_update``; the adaptive ones
(Adam, RMSProp, FTML, FTRL, LAMB) are in ``ops/optimizer_update_adaptive.py``.

As in MXNet, an update op takes the weight, the gradient and the optimizer states; the states
(``mom``, ``weight32``, ...) are auxiliary inputs, UPDATED IN PLACE, and the new weight is the op's
output, which the call writes to ``out=`` (usually ``out=weight``) and returns. The gradient is
first rescaled and clipped: ``clip(rescale_grad * grad, clip_gradient)``, with no clipping when
``clip_gradient`` is negative (the default -1; MXNet clips when it is >= 0, so 0 clips every
gradient to 0). Multi-precision (``mp_``) ops keep the master copy ``weight32`` (and ``mom``) in
float32 and compute in float32; their output is ``weight32`` in the weight's dtype (float16).
The multi-tensor ops update ``num_weights`` weights at once, with one learning rate and one weight
decay each (``lrs``, ``wds``); their inputs are the groups ``weight_i, grad_i[, mom_i][,
weight32_i]`` one after the other, and they have one output per weight.

These ops have no gradient. ``lazy_update`` is accepted but no lazy update is made: the ops see
dense values (row-sparse arrays are stored densely), so every row is updated, which is MXNet's
result for a dense gradient or ``lazy_update=False``; MXNet, given a ``row_sparse`` gradient and
``lazy_update=True``, leaves the rows absent from the gradient (and their states) unchanged.
``nag_mom_update`` decays the momentum with the NEW weight (``mom = m - lr*(g + wd*new_weight)``),
which is MXNet's result with ``out=weight`` (what its optimizer passes); MXNet with another
``out=`` array uses the old weight there.

Example::

    >>> import hybridlab as mx
    >>> w, g, mom = mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, -1.0]), mx.nd.zeros((2,))
    >>> out = mx.nd.sgd_mom_update(w, g, mom, lr=0.1, momentum=0.9, out=w)
    >>> out is w, w.asnumpy().tolist(), mom.asnumpy().tolist()
    (True, [0.949999988079071, 2.0999999046325684], [-0.05000000074505806, 0.10000000149011612])
    >>> w2, g2 = mx.nd.array([3.0]), mx.nd.array([1.0])
    >>> _ = mx.nd.multi_sgd_update(w, g, w2, g2, lrs=(0.1, 0.5), wds=(0.0, 0.0), num_weights=2, out=[w, w2])
    >>> w2.asnumpy().tolist()
    [2.5]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .dtype_check import DTypeError, check_dtypes, uniform_dtypes
from .infer import InferError
from .registry import OpDef, register

__all__ = []

_F32 = np.dtype(np.float32)
NO_GRAD = "an optimizer update: it changes its states in place and has no gradient"


# ---- shared pieces (ops/optimizer_update_adaptive.py uses them too) --------------------------------
def rescaled(xp, a, grad, clip_key="clip_gradient"):
    """``clip(rescale_grad * grad, clip)``: clipped to [-clip, clip] when ``clip >= 0`` (MXNet's
    test; the default -1 leaves it unclipped)."""
    g = grad * a["rescale_grad"]
    c = a[clip_key]
    return xp.clip(g, -c, c) if c >= 0 else g


def assign(state, value):
    """Write ``value`` into the state array ``state`` (in place, in the state's dtype)."""
    state[...] = value


def same_shapes(n_out=1):
    """Shape inference of an update: every input has the weight's shape (input 0), as the output(s)."""
    def infer(a, s):
        ref = next((x for x in s if x is not None), None)
        if ref is None:
            return [None] * n_out
        for i, x in enumerate(s):
            if x is None:
                s[i] = tuple(ref)
            elif tuple(x) != tuple(ref):
                raise InferError(i, tuple(ref), tuple(x), "an update's inputs have the weight's shape")
        return [tuple(ref)] * n_out
    return infer


def mp_dtypes(op_name, n_states):
    """``infer_type`` of a multi-precision update: inputs in groups ``weight, grad, states...``
    (one group, or ``num_weights``); weights and gradients share one dtype (float16), the
    ``n_states`` states are float32; one output per group, in the weights' dtype."""
    size = 2 + n_states

    def infer_type(a, d):
        plain = [i for i in range(len(d)) if i % size < 2]
        ref = next((i for i in plain if d[i] is not None), None)
        want = d[ref] if ref is not None else None
        for i in range(len(d)):
            expected, why = (want, ref) if i % size < 2 else (_F32, "multi-precision states are float32")
            if d[i] is None:
                d[i] = expected
            elif expected is not None and d[i] != expected:
                _dtype_fail(op_name, a, d, i, expected, why)
        return [want] * (len(d) // size)
    infer_type.__doc__ = f"{op_name}: weights and gradients share a dtype; the states are float32."
    return infer_type


def _dtype_fail(op_name, a, d, i, want, why):
    """Raise ``DTypeError`` for input ``i``; ``why``: a text, or the index of the input whose dtype
    was expected."""
    from .registry import get_op    # the registry is built from the op files that import this one
    names = get_op(op_name).input_names(a)
    names = tuple(names) + tuple(f"input {k}" for k in range(len(names), len(d)))
    reason = why if isinstance(why, str) else f"the dtype of {names[why]}"
    raise DTypeError(op_name, i, names[i], want, d[i], reason)


LR = Attr("float", doc="Learning rate.")
WD = Attr("float", 0.0, doc="Weight decay: adds wd * weight to the gradient.")
RESCALE = Attr("float", 1.0, doc="Gradients are multiplied by it first.")
CLIP = Attr("float", -1.0, doc="Clip gradients to [-clip_gradient, clip_gradient]; negative: no clipping.")
_LAZY = Attr("bool", True, doc="Accepted: gradients are dense here, so every row is updated.")
_MOMENTUM = Attr("float", 0.0, doc="Decay rate of the momentum.")


def update_op(name, inputs, aux, attrs, compute, doc, infer_type=None, infer_shape=None):
    """Register one single-weight update op (no gradient; ``aux`` states mutated in place)."""
    return register(OpDef(
        name, family="nn", inputs=inputs, aux=aux, attrs=attrs, compute=compute,
        infer_shape=infer_shape or same_shapes(), infer_type=infer_type or uniform_dtypes(name),
        no_grad_reason=NO_GRAD, doc=doc))


# ---- SGD -----------------------------------------------------------------------------------------
def _sgd_step(xp, a, lr, wd, w, grad, mom=None):
    """The new weight of ``w`` (and, with ``mom``, the momentum updated in place)."""
    g = rescaled(xp, a, grad)
    if mom is None:
        return w * (1 - lr * wd) - g * lr
    assign(mom, mom * a["momentum"] - w * (lr * wd) - g * lr)
    return w + mom


def typed(name):
    """``(infer_type, check)`` of an update whose inputs share one dtype: ``check(a, *arrays)``
    raises ``DTypeError`` as MXNet's type inference does (one comparison per input when they agree)."""
    infer = uniform_dtypes(name)

    def check(a, *arrays):
        d = arrays[0].dtype
        if any(x.dtype != d for x in arrays):
            check_dtypes(infer, a, *arrays)
    return infer, check


_sgd_types, _sgd_check = typed("sgd_update")
_sgdm_types, _sgdm_check = typed("sgd_mom_update")
_mp_sgd_types = mp_dtypes("mp_sgd_update", 1)
_mp_sgdm_types = mp_dtypes("mp_sgd_mom_update", 2)


def _sgd(ctx, a, w, g):
    _sgd_check(a, w, g)
    return _sgd_step(ctx.xp, a, a["lr"], a["wd"], w, g)


def _sgd_mom(ctx, a, w, g, mom):
    _sgdm_check(a, w, g, mom)
    return _sgd_step(ctx.xp, a, a["lr"], a["wd"], w, g, mom)


def _mp_check(infer, a, w, g, *states):
    if g.dtype != w.dtype or any(s.dtype != _F32 for s in states):
        check_dtypes(infer, a, w, g, *states)


def _mp_sgd(ctx, a, w, g, w32):
    _mp_check(_mp_sgd_types, a, w, g, w32)
    assign(w32, _sgd_step(ctx.xp, a, a["lr"], a["wd"], w32, g.astype(_F32, copy=False)))
    return w32.astype(w.dtype)


def _mp_sgd_mom(ctx, a, w, g, mom, w32):
    _mp_check(_mp_sgdm_types, a, w, g, mom, w32)
    assign(w32, _sgd_step(ctx.xp, a, a["lr"], a["wd"], w32, g.astype(_F32, copy=False), mom))
    return w32.astype(w.dtype)


_SGD_ATTRS = {"lr": LR, "wd": WD, "rescale_grad": RESCALE, "clip_gradient": CLIP, "lazy_update": _LAZY}
_MOM_ATTRS = {"lr": LR, "momentum": _MOMENTUM, "wd": WD, "rescale_grad": RESCALE, "clip_gradient": CLIP,
              "lazy_update": _LAZY}

update_op("sgd_update", ("weight", "grad"), (), dict(_SGD_ATTRS), _sgd, infer_type=_sgd_types,
          doc="SGD: weight = (1 - lr*wd) * weight - lr * clip(rescale_grad*grad).")
update_op("sgd_mom_update", ("weight", "grad", "mom"), ("mom",), dict(_MOM_ATTRS), _sgd_mom,
          infer_type=_sgdm_types,
          doc="SGD with momentum: mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad) (in place); "
              "weight = weight + mom.")
update_op("mp_sgd_update", ("weight", "grad", "weight32"), ("weight32",), dict(_SGD_ATTRS), _mp_sgd,
          infer_type=_mp_sgd_types,
          doc="Multi-precision sgd_update: the float32 master weight32 is updated in place; the output is "
              "weight32 in the weight's dtype.")
update_op("mp_sgd_mom_update", ("weight", "grad", "mom", "weight32"), ("mom", "weight32"), dict(_MOM_ATTRS),
          _mp_sgd_mom, infer_type=_mp_sgdm_types,
          doc="Multi-precision sgd_mom_update: mom and the float32 master weight32 are updated in place; the "
              "output is weight32 in the weight's dtype.")


# ---- NAG -----------------------------------------------------------------------------------------
def _nag_step(xp, a, w, grad, mom):
    """MXNet's NAG kernel writes the new weight, then updates the momentum with the weight decay of
    that NEW weight (in MXNet that is so when the output is the weight: ``out=weight``, what its
    optimizer passes, and always for the master weight of ``mp_nag_mom_update``)."""
    lr, wd, m = a["lr"], a["wd"], a["momentum"]
    g = rescaled(xp, a, grad)
    m1 = mom * m
    new_w = w - m1 + (m1 - (g + w * wd) * lr) * (m + 1)
    assign(mom, m1 - (g + new_w * wd) * lr)
    return new_w


_nag_types, _nag_check = typed("nag_mom_update")
_mp_nag_types = mp_dtypes("mp_nag_mom_update", 2)


def _nag(ctx, a, w, g, mom):
    _nag_check(a, w, g, mom)
    return _nag_step(ctx.xp, a, w, g, mom)


def _mp_nag(ctx, a, w, g, mom, w32):
    _mp_check(_mp_nag_types, a, w, g, mom, w32)
    assign(w32, _nag_step(ctx.xp, a, w32, g.astype(_F32, copy=False), mom))
    return w32.astype(w.dtype)


_NAG_ATTRS = {"lr": LR, "momentum": _MOMENTUM, "wd": WD, "rescale_grad": RESCALE, "clip_gradient": CLIP}
_NAG_DOC = ("g = clip(rescale_grad*grad); m = momentum*mom; weight' = weight - m + (momentum+1) * (m - lr*(g + "
            "wd*weight)); mom = m - lr*(g + wd*weight') (in place; weight' the new weight, as MXNet's kernel "
            "computes it with out=weight).")
update_op("nag_mom_update", ("weight", "grad", "mom"), ("mom",), dict(_NAG_ATTRS), _nag, infer_type=_nag_types,
          doc="Nesterov momentum: " + _NAG_DOC)
update_op("mp_nag_mom_update", ("weight", "grad", "mom", "weight32"), ("mom", "weight32"), dict(_NAG_ATTRS),
          _mp_nag, infer_type=_mp_nag_types,
          doc="Multi-precision nag_mom_update on the float32 master weight32 (updated in place with mom): "
              + _NAG_DOC)


# ---- SignSGD, Signum -----------------------------------------------------------------------------
_sign_types, _sign_check = typed("signsgd_update")
_signum_types, _signum_check = typed("signum_update")


def _signsgd(ctx, a, w, grad):
    _sign_check(a, w, grad)
    xp = ctx.xp
    return w * (1 - a["lr"] * a["wd"]) - xp.sign(grad) * a["lr"]   # MXNet: no rescale, no clip here


def _signum(ctx, a, w, grad, mom):
    _signum_check(a, w, grad, mom)
    xp = ctx.xp
    m = a["momentum"]
    assign(mom, mom * m - (w * a["wd"] + rescaled(xp, a, grad)) * (1 - m))
    return w * (1 - a["lr"] * a["wd_lh"]) + xp.sign(mom) * a["lr"]


update_op("signsgd_update", ("weight", "grad"), (),
          {"lr": LR, "wd": WD, "rescale_grad": RESCALE, "clip_gradient": CLIP}, _signsgd,
          infer_type=_sign_types,
          doc="SignSGD: weight = (1 - lr*wd) * weight - lr * sign(grad) (as MXNet's kernel, which accepts "
              "rescale_grad and clip_gradient but uses neither).")
update_op("signum_update", ("weight", "grad", "mom"), ("mom",),
          {"lr": LR, "momentum": _MOMENTUM, "wd": WD, "rescale_grad": RESCALE, "clip_gradient": CLIP,
           "wd_lh": Attr("float", 0.0, doc="Weight decay applied to the weight directly (decoupled).")},
          _signum, infer_type=_signum_types,
          doc="Signum: mom = momentum*mom - (1-momentum) * (wd*weight + clip(rescale_grad*grad)) (in place); "
              "weight = (1 - lr*wd_lh) * weight + lr * sign(mom).")


# ---- multi-tensor SGD ----------------------------------------------------------------------------
def _multi(name, states, mp, momentum):
    """Register ``name``: ``num_weights`` groups ``weight_i, grad_i, <states>_i``, one output each."""
    group = ("weight", "grad") + states
    size = len(group)

    def inputs(a):
        return tuple(f"{n}_{i}" for i in range(a["num_weights"]) for n in group)

    def aux(a):
        return tuple(f"{n}_{i}" for i in range(a["num_weights"]) for n in states)

    def check_lists(a):
        for k in ("lrs", "wds"):
            if len(a[k]) != a["num_weights"]:
                raise MXNetError(f"{name}: attribute '{k}' expected {a['num_weights']} value(s) (one "
                                 f"per weight: num_weights={a['num_weights']}), got {len(a[k])}: {a[k]}")

    types = mp_dtypes(name, len(states)) if mp else uniform_dtypes(name, n_out=lambda a: a["num_weights"])

    def shapes(a, s):
        check_lists(a)
        if len(s) != size * a["num_weights"]:
            raise InferError(0, f"{size * a['num_weights']} inputs ({size} per weight, "
                             f"num_weights={a['num_weights']})", f"{len(s)} inputs")
        out = []
        for start in range(0, len(s), size):
            part = s[start:start + size]
            try:
                out += same_shapes()(a, part)
            except InferError as err:
                raise InferError(start + err.arg, err.expected, err.got, err.why) from None
            s[start:start + size] = part
        return out

    def compute(ctx, a, *arrays):
        xp = ctx.xp
        check_lists(a)
        d = arrays[0].dtype
        if any(x.dtype != (d if not mp or i % size < 2 else _F32) for i, x in enumerate(arrays)):
            check_dtypes(types, a, *arrays)
        outs = []
        for i in range(a["num_weights"]):
            w, g, *st = arrays[i * size:(i + 1) * size]
            lr, wd = a["lrs"][i], a["wds"][i]
            if mp:
                w32 = st[-1]
                assign(w32, _sgd_step(xp, a, lr, wd, w32, g.astype(_F32, copy=False), st[0] if momentum else None))
                outs.append(w32.astype(w.dtype))
            else:
                outs.append(_sgd_step(xp, a, lr, wd, w, g, st[0] if momentum else None))
        return tuple(outs)

    attrs = {"lrs": Attr("floats", doc="Learning rates, one per weight."),
             "wds": Attr("floats", doc="Weight decays, one per weight.")}
    if momentum:
        attrs["momentum"] = _MOMENTUM
    attrs.update({"rescale_grad": RESCALE, "clip_gradient": CLIP,
                  "num_weights": Attr("int", 1, doc="How many weights are updated.")})
    what = "sgd_mom_update" if momentum else "sgd_update"
    register(OpDef(
        name, family="nn", inputs=inputs, aux=aux, attrs=attrs, count_attr="num_weights",
        bounds={"num_weights": (1, None)}, num_outputs=lambda a: a["num_weights"], compute=compute,
        infer_shape=shapes, infer_type=types, no_grad_reason=NO_GRAD,
        doc=f"{'Multi-precision ' if mp else ''}{what} of num_weights weights at once: inputs "
            f"{', '.join(n + '_0' for n in group)}, {', '.join(n + '_1' for n in group)}, ... (positionally); "
            f"weight i uses lrs[i] and wds[i]; "
            + ("the states " + " and ".join(states) + " are updated in place; " if states else "")
            + "one output per weight (the new weights: pass out=[weights])."))


_multi("multi_sgd_update", (), mp=False, momentum=False)
_multi("multi_sgd_mom_update", ("mom",), mp=False, momentum=True)
_multi("multi_mp_sgd_update", ("weight32",), mp=True, momentum=False)
_multi("multi_mp_sgd_mom_update", ("mom", "weight32"), mp=True, momentum=True)
