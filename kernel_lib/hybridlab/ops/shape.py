"""Shape operators: Reshape (MXNet's special codes), reshape_like, shape_array/size_array,
expand_dims, squeeze, transpose, SwapAxis, Flatten, Concat/_rnn_param_concat, stack,
SliceChannel/_split_v2, tile, repeat.

Results never alias their inputs (reshapes copy). Gradients are written with registered ops; most
are shape-free (``reshape_like``, Reshape codes), so they can be traced into graphs.
Slicing, broadcasting, reverse, Pad and depth_to_space/space_to_depth live in ``shape_slice.py``.
"""
from ..base import MXNetError
from .attrs import Attr
from .infer import InferError, known, merge_shape, normalize_axis, prod
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


register(OpDef("Reshape", aliases=("reshape",), family="shape",
               attrs={"shape": Attr("shape", ()), "reverse": Attr("bool", False),
                      "target_shape": Attr("shape", (), doc="deprecated: use shape"),
                      "keep_highest": Attr("bool", False, doc="deprecated: use shape")},
               compute=lambda ctx, a, x: _copy_reshape(x, _reshape_infer(a, [x.shape])[0]),
               infer_shape=_reshape_infer, grad=_reshape_like_grad,
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
               no_grad_reason="integer output (the shape)", zero_grad=True, doc="The input's shape as a 1-D int64 array."))
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


# ---- transpose / SwapAxis -----------------------------------------------------------------------
def _perm(a, nd):
    axes = a["axes"]
    if not axes:
        return tuple(range(nd - 1, -1, -1))
    perm = tuple(normalize_axis(ax, nd) for ax in axes)
    if sorted(perm) != list(range(nd)):
        raise InferError(0, f"with ndim matching the permutation axes={tuple(axes)}", f"ndim {nd}")
    return perm


def _transpose_grad(F, a, inputs, outputs, ograds):
    perm = _perm(a, inputs[0].ndim)
    inv = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
    return [F.transpose(ograds[0], axes=inv)]


register(OpDef("transpose", family="shape", np=NsName("transpose", args=("axes",)),
               attrs={"axes": Attr("shape?", (), doc="a permutation; () or None reverses the axes")},
               compute=lambda ctx, a, x: x.transpose(_perm(a, x.ndim)).copy(),
               infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0][p] for p in _perm(a, len(s[0])))],
               grad=_transpose_grad, doc="Permute the axes (reverse them when `axes` is empty)."))


def _swap_perm(a, nd):
    d1, d2 = normalize_axis(a["dim1"], nd), normalize_axis(a["dim2"], nd)
    perm = list(range(nd))
    perm[d1], perm[d2] = perm[d2], perm[d1]
    return perm


def _swap_compute(ctx, a, x):
    return x.transpose(_swap_perm(a, x.ndim)).copy()


register(OpDef("SwapAxis", aliases=("swapaxes",), family="shape",
               np=NsName("swapaxes", rename={"axis1": "dim1", "axis2": "dim2"}, args=("dim1", "dim2")),
               attrs={"dim1": Attr("int", 0), "dim2": Attr("int", 0)}, compute=_swap_compute,
               infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0][p] for p in _swap_perm(a, len(s[0])))],
               grad=lambda F, a, ins, outs, og: [F.SwapAxis(og[0], dim1=a["dim1"], dim2=a["dim2"])],
               doc="Interchange axes dim1 and dim2."))


# ---- Concat / stack ----------------------------------------------------------------------------
def _concat_infer(a, in_shapes, key="dim"):
    ref = next((s for s in in_shapes if s is not None), None)
    if ref is None:
        return [None]
    nd = len(ref)
    dim = normalize_axis(a[key], nd)
    template = list(ref)
    template[dim] = 0
    for i, s in enumerate(in_shapes):
        if s is None:
            continue
        if len(s) != nd:
            raise InferError(i, tuple(template), tuple(s), "all inputs must have the same number of dimensions")
        for d in range(nd):
            if d != dim:
                if template[d] and s[d] and template[d] != s[d]:
                    raise InferError(i, tuple(template), tuple(s),
                                     f"inputs must agree on every axis except {key}={a[key]}")
                template[d] = template[d] or s[d]
    total = 0
    for i, s in enumerate(in_shapes):
        exp = list(template)
        exp[dim] = s[dim] if s is not None else 0
        merge_shape(in_shapes, i, exp)
        total = total + in_shapes[i][dim] if total is not None and in_shapes[i][dim] else None
    out = list(template)
    out[dim] = total or 0
    return [tuple(out)]


def _concat_grad(F, a, inputs, outputs, ograds, key="dim"):
    dim = normalize_axis(a[key], inputs[0].ndim)
    res, start = [], 0
    for x in inputs:
        n = x.shape[dim]
        res.append(F.slice_axis(ograds[0], axis=dim, begin=start, end=start + n))
        start += n
    return res


def concat_op(name, default_dim, aliases=(), np=(), doc=""):
    return register(OpDef(name, variadic=True, family="shape", aliases=aliases, np=np,
                          attrs={"num_args": Attr("int"), "dim": Attr("int", default_dim)},
                          bounds={"num_args": (1, None)},
                          compute=lambda ctx, a, *xs: ctx.xp.concatenate(xs, axis=a["dim"]),
                          infer_shape=_concat_infer, grad=_concat_grad, doc=doc))


concat_op("Concat", 1, aliases=("concat",),
          np=NsName("concatenate", rename={"axis": "dim"}, defaults={"dim": 0}, packed=True, args=("dim",)),
          doc="Join the inputs along axis `dim`; every other axis must agree.")
concat_op("_rnn_param_concat", 1, doc="Concat for packing RNN parameters (same semantics as Concat).")


def _stack_infer(a, in_shapes):
    ref = next((s for s in in_shapes if s is not None), None)
    if ref is None:
        return [None]
    for i in range(len(in_shapes)):
        merge_shape(in_shapes, i, ref, "all inputs of stack must have the same shape")
    ref = in_shapes[0]
    axis = a["axis"]
    if not -len(ref) - 1 <= axis <= len(ref):
        raise InferError(0, f"with at least {abs(axis) - 1} dimensions (axis={axis})", tuple(ref))
    axis %= len(ref) + 1
    return [tuple(ref[:axis]) + (len(in_shapes),) + tuple(ref[axis:])]


def _stack_grad(F, a, inputs, outputs, ograds):
    n = len(inputs)
    axis = a["axis"] % outputs[0].ndim
    parts = F.SliceChannel(ograds[0], num_outputs=n, axis=axis, squeeze_axis=True)
    return list(parts) if n > 1 else [parts]


register(OpDef("stack", variadic=True, family="shape", attrs={"num_args": Attr("int"), "axis": Attr("int", 0)},
               bounds={"num_args": (1, None)},
               np=NsName("stack", packed=True, args=("axis",)),
               compute=lambda ctx, a, *xs: ctx.xp.stack(xs, axis=a["axis"]), infer_shape=_stack_infer,
               grad=_stack_grad, doc="Join same-shaped inputs along a new axis `axis`."))


# ---- SliceChannel / _split_v2 ------------------------------------------------------------------
def _split_bounds(a, s, axis):
    """Start offsets and sizes of each output along ``axis`` (SliceChannel or _split_v2 attrs)."""
    n = s[axis]
    if "num_outputs" in a:
        k = a["num_outputs"]
        if k < 1 or (n and n % k):
            raise InferError(0, f"with axis {axis} divisible by num_outputs={k}", tuple(s))
        return [(i * (n // k), n // k) for i in range(k)]
    if a["sections"] > 0:
        k = a["sections"]
        if n and n % k:
            raise InferError(0, f"with axis {axis} divisible by sections={k}", tuple(s))
        return [(i * (n // k), n // k) for i in range(k)]
    idx = list(a["indices"]) + [n]
    for b, e in zip(idx[:-1], idx[1:]):
        if n and not 0 <= b <= e <= n:
            raise InferError(0, f"with axis {axis} covering split indices {tuple(a['indices'])}", tuple(s))
    return [(b, e - b) for b, e in zip(idx[:-1], idx[1:])]


def _split_shapes(a, s):
    axis = normalize_axis(a["axis"], len(s))
    out = []
    for _, size in _split_bounds(a, s, axis):
        if a["squeeze_axis"]:
            if size not in (1, 0):
                raise InferError(0, f"with axis {axis} of size equal to the number of outputs", tuple(s),
                                 "squeeze_axis needs outputs of size 1 along the axis")
            out.append(tuple(s[:axis]) + tuple(s[axis + 1:]))
        else:
            out.append(tuple(s[:axis]) + (size,) + tuple(s[axis + 1:]))
    return out


def _split_compute(ctx, a, x):
    axis = normalize_axis(a["axis"], x.ndim)
    shapes = _split_shapes(a, x.shape)
    sl = [slice(None)] * x.ndim
    res = []
    for (b, size), shape in zip(_split_bounds(a, x.shape, axis), shapes):
        sl[axis] = slice(b, b + size)
        res.append(x[tuple(sl)].reshape(shape).copy())
    return tuple(res)


def _split_grad(F, a, inputs, outputs, ograds):
    axis = normalize_axis(a["axis"], inputs[0].ndim)
    gs = [F.expand_dims(g, axis=axis) for g in ograds] if a["squeeze_axis"] else list(ograds)
    return [F.Concat(*gs, dim=axis) if len(gs) > 1 else gs[0]]


def _n_split(a):
    return a["num_outputs"] if "num_outputs" in a else (a["sections"] if a["sections"] > 0 else len(a["indices"]))


def _split_infer(a, in_shapes):
    return [None] * _n_split(a) if in_shapes[0] is None else _split_shapes(a, in_shapes[0])


register(OpDef("SliceChannel", aliases=("split",), family="shape", num_outputs=_n_split,
               output_names=lambda a: tuple(f"output{i}" for i in range(a["num_outputs"])),
               attrs={"num_outputs": Attr("int"), "axis": Attr("int", 1), "squeeze_axis": Attr("bool", False)},
               bounds={"num_outputs": (1, None)},
               compute=_split_compute, infer_shape=_split_infer, infer_type=lambda a, d: [d[0]] * _n_split(a),
               grad=_split_grad, doc="Split into `num_outputs` equal parts along `axis` (outputs output0..); "
                                     "squeeze_axis drops the axis when each part has size 1."))
register(OpDef("_split_v2", family="shape", num_outputs=_n_split,
               np=NsName("split", rename={"indices_or_sections": "sections"}, defaults={"axis": 0},
                         args=("sections", "axis")),
               attrs={"indices": Attr("shape", ()), "axis": Attr("int", 1), "squeeze_axis": Attr("bool", False),
                      "sections": Attr("int", 0)},
               compute=_split_compute, infer_shape=_split_infer, infer_type=lambda a, d: [d[0]] * _n_split(a),
               grad=_split_grad, doc="Split along `axis` into `sections` equal parts, or at the boundaries "
                                     "`indices` (starting with 0). np.split(a, k) maps to sections=k."))


# ---- tile / repeat -----------------------------------------------------------------------------
def _tile_out(a, s):
    reps = tuple(a["reps"])
    m = max(len(reps), len(s))
    reps = (1,) * (m - len(reps)) + reps
    s = (1,) * (m - len(s)) + tuple(s)
    return tuple(r * d for r, d in zip(reps, s)), reps


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
               compute=lambda ctx, a, x: ctx.xp.tile(x, tuple(a["reps"])),
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
