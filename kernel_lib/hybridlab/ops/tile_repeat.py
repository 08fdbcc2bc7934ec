"""Repetition: ``tile`` (the whole array repeated ``reps`` times per axis) and ``repeat`` (each
element repeated ``repeats`` times along an axis). Both gradients sum the copies back with
``Reshape`` codes and ``sum``, so they need no data and can be traced.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.tile(mx.nd.array([1, 2]), reps=(2, 2)).asnumpy().tolist()
    [[1.0, 2.0, 1.0, 2.0], [1.0, 2.0, 1.0, 2.0]]
    >>> mx.nd.repeat(mx.nd.array([1, 2]), repeats=2).asnumpy().tolist()
    [1.0, 1.0, 2.0, 2.0]
"""
from ..base import MXNetError
from .attrs import Attr
from .context import legacy_zero_size
from .infer import InferError, normalize_axis, prod
from .registry import NsName, OpDef, register


def _tile_out(a, s):
    reps = tuple(a["reps"])
    if any(r < 0 for r in reps):
        raise MXNetError(f"tile: expected reps of non-negative integers, got {reps}")
    m = max(len(reps), len(s))
    reps = (1,) * (m - len(reps)) + reps
    s = (1,) * (m - len(s)) + tuple(s)
    out = tuple(r * d for r, d in zip(reps, s))
    if 0 in reps and legacy_zero_size(out):
        raise MXNetError(f"tile: reps {tuple(a['reps'])} give the zero-size shape {out}, which needs NumPy shape "
                         f"semantics (mx.npx.set_np() or mx.util.np_shape()); expected positive reps")
    return out, reps


def _tile_grad(F, a, inputs, outputs, ograds):
    x = inputs[0]
    _, reps = _tile_out(a, x.shape)
    if 0 in reps or x.size == 0:
        return [F.zeros_like(x)]
    codes = []
    for r in reps:
        codes += [-4, r, -1]
    g = F.Reshape(ograds[0], shape=tuple(codes))
    g = F.sum(g, axis=tuple(range(0, 2 * len(reps), 2)))
    return [F.reshape_like(g, x)]


register(OpDef("tile", family="shape", np=NsName("tile", args=("reps",)), attrs={"reps": Attr("shape")},
               compute=lambda ctx, a, x: ctx.xp.tile(x, _tile_out(a, x.shape)[1]),
               infer_shape=lambda a, s: [None if s[0] is None else _tile_out(a, s[0])[0]], grad=_tile_grad,
               doc="Repeat the whole array `reps` times per axis (reps is padded with 1s, or the input "
                   "with leading axes, to the same length)."))


def _repeat_out(a, s):
    r = a["repeats"]
    if r < 0:
        raise InferError(0, "repeats >= 0", r)
    if a["axis"] is None:
        return (prod(s) * r,)
    axis = normalize_axis(a["axis"], len(s))
    return tuple(s[:axis]) + (s[axis] * r,) + tuple(s[axis + 1:])


def _repeat_compute(ctx, a, x):
    if a["axis"] is None:
        return ctx.xp.repeat(x.reshape(-1), a["repeats"])
    return ctx.xp.repeat(x, a["repeats"], axis=normalize_axis(a["axis"], x.ndim))


def _repeat_grad(F, a, inputs, outputs, ograds):
    x, r = inputs[0], a["repeats"]
    if r == 0 or x.size == 0:
        return [F.zeros_like(x)]
    if a["axis"] is None:
        return [F.reshape_like(F.sum(F.Reshape(ograds[0], shape=(-1, r)), axis=1), x)]
    axis = normalize_axis(a["axis"], x.ndim)
    g = F.Reshape(ograds[0], shape=(0,) * axis + (-4, -1, r, -2))
    return [F.sum(g, axis=axis + 1)]


register(OpDef("repeat", family="shape", np=NsName("repeat", args=("repeats", "axis")),
               attrs={"repeats": Attr("int"), "axis": Attr("int?", None)}, compute=_repeat_compute,
               infer_shape=lambda a, s: [None if s[0] is None else _repeat_out(a, s[0])], grad=_repeat_grad,
               doc="Repeat each element `repeats` times along `axis` (of the flattened array when None)."))
