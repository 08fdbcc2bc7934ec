"""Reshaping operators: Reshape (MXNet's special codes), _np_reshape (NumPy's rules), reshape_like,
the shape queries shape_array/size_array, expand_dims, squeeze (and _np_squeeze), Flatten.

Results never alias their inputs (reshapes copy). Gradients are written with registered ops; most
are shape-free (``reshape_like``, Reshape codes), so they can be traced into graphs.
The other shape operators: axis permutations (transpose, SwapAxis) in ``transpose.py``; Concat, stack
and the splits in ``concat_split.py``; tile and repeat in ``tile_repeat.py``; slicing, broadcasting,
reverse, Pad and depth_to_space/space_to_depth in ``shape_slice.py``; npx.reshape in ``npx_reshape.py``.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.Reshape(mx.nd.zeros((2, 3, 4)), shape=(0, -1)).shape, mx.nd.squeeze(mx.nd.zeros((1, 3, 1))).shape
    ((2, 12), (3,))
"""
from ..base import MXNetError
from .attrs import Attr
from .infer import InferError, known, normalize_axis, prod
from .registry import NsName, OpDef, register


def _copy_reshape(x, shape):
    return x.reshape(shape).copy()


def _reshape_like_grad(F, a, inputs, outputs, ograds):
    return [F.reshape_like(ograds[0], inputs[0])]


# ---- Reshape -----------------------------------------------------------------------------------
def infer_reshape(spec, dshape, reverse=False, arg=0):
    """Output shape of MXNet's Reshape codes: 0 copy, -1 infer, -2 copy rest, -3 merge two,
    -4 split one into the next two values; ``reverse`` matches from the right."""
    def need(cond, why):
        if not cond:
            raise InferError(arg, f"compatible with Reshape shape={tuple(spec)}", tuple(dshape), why)

    src, params = list(dshape), list(spec)
    if reverse:
        src.reverse()
        params.reverse()
    out, si, inf, i = [], 0, -1, 0
    while i < len(params):
        p = params[i]
        if p == 0:
            need(si < len(src), "code 0 copies a dimension the input does not have")
            out.append(src[si])
            si += 1
        elif p == -1:
            need(inf < 0, "only one dimension can be inferred (-1)")
            inf = len(out)
            out.append(1)
            si += 1
        elif p == -2:
            out.extend(src[si:])
            si = len(src)
        elif p == -3:
            need(si + 1 < len(src), "code -3 merges two dimensions the input does not have")
            out.append(src[si] * src[si + 1])
            si += 2
        elif p == -4:
            need(i + 2 < len(params) and si < len(src), "code -4 needs an input dimension and two values after it")
            d0, d1, d2 = src[si], params[i + 1], params[i + 2]
            si += 1
            i += 2
            need(d1 != -1 or d2 != -1, "split dims cannot both be -1")
            if d1 == -1:
                d1 = d0 // d2 if d2 else 0
            if d2 == -1:
                d2 = d0 // d1 if d1 else 0
            need(d0 == 0 or d1 * d2 == d0, f"split dims {d1}, {d2} do not divide the dimension {d0}")
            out += [d1, d2]
        elif p > 0:
            out.append(p)
            si += 1
        else:
            need(False, f"invalid special value {p}")
        i += 1
    if inf >= 0:
        rest = prod(out)
        out[inf] = prod(dshape) // rest if known(dshape) and rest else 0
    if reverse:
        out.reverse()
    return tuple(out)


def _reshape_out(a, dshape):
    if a["shape"]:
        return infer_reshape(a["shape"], dshape, a["reverse"])
    target = list(a["target_shape"])
    if not target:
        return ()
    start = 1 if a["keep_highest"] else 0
    if a["keep_highest"]:
        target[0] = dshape[0]
    zeros = [i for i in range(start, len(target)) if target[i] == 0]
    if len(zeros) == 1 and known(dshape):
        target[zeros[0]] = 1
        target[zeros[0]] = prod(dshape) // max(1, prod(target))
    return tuple(target)


def _reshape_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None]
    out = _reshape_out(a, s)
    if known(s) and known(out) and prod(out) != prod(s):
        raise InferError(0, f"with {prod(out)} elements (target {out})", tuple(s),
                         "target shape size is different to source")
    return [out]


def _reshape_partial(a, in_shapes, outs):
    """Partial symbolic inference (MXNet's ReverseReshapeInferShape): an input with one unknown (0)
    dimension gets it from the known output's size."""
    data, out = in_shapes[0], outs[0]
    if out is None or 0 in out or data is None or list(data).count(0) != 1:
        return
    rest, size = prod(d for d in data if d), prod(out)
    if rest and size % rest == 0:
        in_shapes[0] = tuple(d or size // rest for d in data)


register(OpDef("Reshape", aliases=("reshape",), family="shape",
               attrs={"shape": Attr("shape", ()), "reverse": Attr("bool", False),
                      "target_shape": Attr("shape", (), doc="deprecated: use shape"),
                      "keep_highest": Attr("bool", False, doc="deprecated: use shape")},
               compute=lambda ctx, a, x: _copy_reshape(x, _reshape_infer(a, [x.shape])[0]),
               infer_shape=_reshape_infer, infer_partial=_reshape_partial, grad=_reshape_like_grad,
               doc="Reshape to `shape` with special codes: 0 copies a dimension, -1 infers one, -2 copies "
                   "the rest, -3 merges two, -4 splits one into the two values that follow; reverse=True "
                   "matches the codes from the right. shape=() gives a 0-d array."))


# ---- _np_reshape: NumPy's reshape (mx.np.reshape, and ndarray.reshape of mx.np arrays) ----------
def _np_reshape_out(a, shape, arg=0):
    """NumPy's rule: sizes as given, at most one -1 inferred; 0 is a size (no MXNet codes)."""
    new = tuple(a["newshape"])
    if any(d < -1 for d in new) or new.count(-1) > 1:
        raise MXNetError(f"_np_reshape: newshape expected sizes >= 0 and at most one -1, got {new}")
    if a["order"] != "C":
        raise MXNetError(f"_np_reshape: order expected 'C', got {a['order']!r}")
    size = prod(shape)
    if -1 in new:
        rest = prod(d for d in new if d != -1)
        if rest == 0 or size % rest:
            raise InferError(arg, f"with a nonzero multiple of {rest} elements (newshape {new})", tuple(shape))
        return tuple(size // rest if d == -1 else d for d in new)
    if prod(new) != size:
        raise InferError(arg, f"with {prod(new)} elements (newshape {new})", tuple(shape))
    return new


def _np_reshape_infer(a, in_shapes):
    s = in_shapes[0]
    return [None if s is None else _np_reshape_out(a, s)]


register(OpDef("_np_reshape", family="shape", np=NsName("reshape", rename={"shape": "newshape"},
                                                        args=("newshape", "order")),
               attrs={"newshape": Attr("shape", ()), "order": Attr("str", "C", doc="only 'C' (row-major)")},
               compute=lambda ctx, a, x: _copy_reshape(x, _np_reshape_out(a, x.shape)),
               infer_shape=_np_reshape_infer, grad=_reshape_like_grad,
               doc="NumPy's reshape: `newshape` as given, at most one -1 inferred (0 is a size, not a code); "
                   "a new array (mx.np.reshape and the reshape of mx.np arrays)."))


def _reshape_like_out(a, l, r):
    def rng(begin, end, n):
        b = 0 if begin is None else (begin + n if begin < 0 else begin)
        e = n if end is None else (end + n if end < 0 else end)
        return b, e
    lb, le = rng(a["lhs_begin"], a["lhs_end"], len(l))
    rb, re = rng(a["rhs_begin"], a["rhs_end"], len(r))
    out = tuple(l[:lb]) + tuple(r[rb:re]) + tuple(l[le:])
    if known(l) and known(out) and prod(out) != prod(l):
        raise InferError(1, f"with dims [{rb}:{re}] holding {prod(l[lb:le])} elements", tuple(r),
                         f"reshape_like cannot reshape {tuple(l)} to {out}")
    return out


def _reshape_like_infer(a, in_shapes):
    l, r = in_shapes
    return [None if l is None or r is None else _reshape_like_out(a, l, r)]


register(OpDef("reshape_like", inputs=("lhs", "rhs"), family="shape", npx="reshape_like",
               attrs={k: Attr("int?", None) for k in ("lhs_begin", "lhs_end", "rhs_begin", "rhs_end")},
               compute=lambda ctx, a, l, r: _copy_reshape(l, _reshape_like_out(a, l.shape, r.shape)),
               infer_shape=_reshape_like_infer,
               grad=lambda F, a, ins, outs, og: [F.reshape_like(og[0], ins[0]), None],
               doc="lhs reshaped to rhs's shape (or lhs dims [lhs_begin:lhs_end] replaced by rhs dims "
                   "[rhs_begin:rhs_end])."))


def _int64(a, dtypes):
    import numpy as np
    return [np.dtype(np.int64)]


register(OpDef("shape_array", family="shape", npx="shape_array", infer_type=_int64,
               compute=lambda ctx, a, x: ctx.xp.asarray(list(x.shape), dtype="int64"),
               infer_shape=lambda a, s: [None if s[0] is None else (len(s[0]),)],
               no_grad_reason="integer output (the shape)", zero_grad=True,
               doc="The input's shape as a 1-D int64 array."))
register(OpDef("size_array", family="shape", infer_type=_int64,
               compute=lambda ctx, a, x: ctx.xp.asarray([x.size], dtype="int64"),
               infer_shape=lambda a, s: [(1,)], no_grad_reason="integer output (the size)", zero_grad=True,
               doc="The input's number of elements as a (1,) int64 array."))


# ---- expand_dims / squeeze / Flatten ------------------------------------------------------------
def _expand_out(a, s):
    axis = a["axis"]
    if not -len(s) - 1 <= axis <= len(s):
        raise InferError(0, f"with at least {abs(axis) - 1 if axis < 0 else axis} dimensions "
                            f"(axis={axis})", tuple(s))
    axis = axis % (len(s) + 1)
    return tuple(s[:axis]) + (1,) + tuple(s[axis:])


register(OpDef("expand_dims", family="shape", np=NsName("expand_dims", args=("axis",)),
               attrs={"axis": Attr("int")},
               compute=lambda ctx, a, x: _copy_reshape(x, _expand_out(a, x.shape)),
               infer_shape=lambda a, s: [None if s[0] is None else _expand_out(a, s[0])],
               grad=_reshape_like_grad, doc="Insert a size-1 axis at `axis` (negative counts from the end)."))


def _squeeze_out(a, s, legacy):
    if a["axis"] is None:
        out = tuple(d for d in s if d != 1)
    elif not legacy and len(s) == 0:    # NumPy: a 0-d array squeezes on the one axis 0 (or -1)
        if tuple(a["axis"]) not in ((0,), (-1,)):
            raise InferError(0, "one axis, 0 or -1, for a 0-d input", f"axis={tuple(a['axis'])}")
        out = ()
    else:
        axes = {normalize_axis(ax, len(s)) for ax in a["axis"]}
        for ax in axes:
            if s[ax] not in (1, 0):
                raise InferError(0, f"with size 1 on axis {ax}", tuple(s), "cannot squeeze an axis whose size is not 1")
        out = tuple(d for i, d in enumerate(s) if i not in axes)
    return (1,) if legacy and not out else out


def squeeze_op(name, legacy, np=(), doc=""):
    return register(OpDef(name, family="shape", np=np, attrs={"axis": Attr("shape?", None)},
                          compute=lambda ctx, a, x: _copy_reshape(x, _squeeze_out(a, x.shape, legacy)),
                          infer_shape=lambda a, s: [None if s[0] is None else _squeeze_out(a, s[0], legacy)],
                          grad=_reshape_like_grad, doc=doc))


squeeze_op("squeeze", True, doc="Remove size-1 axes (all, or those in `axis`); a result with no axes left "
                                "has shape (1,) (MXNet 1.x).")
squeeze_op("_np_squeeze", False, np=NsName("squeeze", args=("axis",)),
           doc="NumPy squeeze: removing every axis gives a 0-d array.")


def _flatten_out(s):
    if len(s) == 0:
        raise InferError(0, "with at least 1 dimension", tuple(s))
    return (s[0], prod(s[1:]))


register(OpDef("Flatten", aliases=("flatten",), family="shape", npx="batch_flatten",
               compute=lambda ctx, a, x: _copy_reshape(x, _flatten_out(x.shape)),
               infer_shape=lambda a, s: [None if s[0] is None else _flatten_out(s[0])], grad=_reshape_like_grad,
               doc="Collapse all axes but the first: (d0, d1, ..., dk) -> (d0, d1*...*dk)."))
