"""Slicing and broadcasting operators: slice (crop), _slice_assign(_scalar), slice_axis,
slice_like, broadcast_to, broadcast_like, broadcast_axis, reverse (flip), _np_flip, Pad (+ _backward_Pad),
depth_to_space and space_to_depth.

``slice`` follows MXNet's index rules: negative values count from the end, None takes the default for
the step's sign, begin/end outside the axis are clamped to it, and a range that selects nothing gives
an empty axis (only a zero step is an error). The gradient
of every slice is ``_slice_assign(zeros_like(x), og)``, whose own gradient is a slice again, so any
order of gradient can be recorded and traced.
"""
from .attrs import REQUIRED, Attr
from .context import legacy_zero_size
from .infer import InferError, merge_shape, normalize_axis
from .registry import NsName, OpDef, register


def _parse_opt_tuple(v):
    if v is None or isinstance(v, str) and v.strip() == "None":     # step=None: every step 1, as MXNet
        return ()
    if isinstance(v, str):
        text = v.strip().strip("()[]")
        return tuple(None if t.strip() == "None" else int(t) for t in text.split(",") if t.strip())
    if isinstance(v, int) and not isinstance(v, bool):
        return (int(v),)
    if isinstance(v, (tuple, list)):
        return tuple(None if x is None else int(x) for x in v)
    if hasattr(v, "__index__"):
        return (int(v),)
    raise ValueError(v)


class OptTupleAttr(Attr):
    """A tuple of ints in which None is allowed (MXNet's ``Tuple<optional<int>>``: "(0, None)")."""
    __slots__ = ()

    def __init__(self, default=REQUIRED, doc=""):
        super().__init__("shape", default, doc=doc)
        self._parse = _parse_opt_tuple

    def describe(self):
        text = "tuple of int or None"
        return text + (", required" if self.required else f", optional, default={self.default}")


SLICE_ATTRS = {"begin": OptTupleAttr(doc="start per axis (None = from the edge)"),
               "end": OptTupleAttr(doc="stop per axis (None = to the edge)"),
               "step": OptTupleAttr((), doc="step per axis (None or missing = 1)")}


def slice_ranges(shape, begin, end, step, arg=0):
    """Python slices for MXNet slice attributes on ``shape`` and the output shape.

    As MXNet's ``GetIndexRange``: begin/end beyond the axis are clamped, not errors, and a range that
    selects nothing in the step's direction is empty.

    >>> slice_ranges((5,), (4,), (-100,), (-1,))
    ((slice(4, None, -1),), (5,))
    >>> slice_ranges((5,), (7,), (9,), ())[1]
    (0,)
    """
    if len(begin) > len(shape) or len(end) != len(begin):
        raise InferError(arg, f"at least {len(begin)} dimensions, begin and end of equal length "
                              f"(begin={tuple(begin)}, end={tuple(end)})", tuple(shape))
    if step and len(step) != len(begin):
        raise InferError(arg, f"step of length {len(begin)} like begin", f"step={tuple(step)}")
    slices, out = [], list(shape)
    for i in range(len(begin)):
        n = shape[i]
        s = step[i] if step and step[i] is not None else 1
        if s == 0:
            raise InferError(arg, f"a nonzero step on axis {i}", "step 0")
        b = begin[i] if begin[i] is not None else (n - 1 if s < 0 else 0)
        e = end[i] if end[i] is not None else (-1 if s < 0 else n)
        if b < 0:
            b += n
        if end[i] is not None and e < 0:
            e += n
        # clamp into the axis; a begin still outside it (before it with s < 0, past it with s > 0)
        # selects nothing. e = -1 stands for "before element 0" (a reverse slice down to 0).
        if b < 0 and s > 0:
            b = 0
        if b > n - 1 and s < 0:
            b = n - 1
        e = min(max(e, -1), n)
        if not 0 <= b < n or (e - b) * s <= 0:
            slices.append(slice(0, 0, 1))
            out[i] = 0
            continue
        slices.append(slice(b, e if e >= 0 else None, s))
        out[i] = (abs(e - b) - 1) // abs(s) + 1
    return tuple(slices), tuple(out)


def _slice_infer(a, in_shapes):
    s = in_shapes[0]
    return [None if s is None else slice_ranges(s, a["begin"], a["end"], a["step"])[1]]


def _slice_compute(ctx, a, x):
    return x[slice_ranges(x.shape, a["begin"], a["end"], a["step"])[0]].copy()


def _slice_kw(a):
    return {"begin": a["begin"], "end": a["end"], "step": a["step"]}


register(OpDef("slice", aliases=("crop",), family="shape", npx="slice", attrs=dict(SLICE_ATTRS),
               compute=_slice_compute, infer_shape=_slice_infer,
               grad=lambda F, a, ins, outs, og: [F._slice_assign(F.zeros_like(ins[0]), og[0], **_slice_kw(a))],
               doc="Slice with per-axis begin/end/step (None = default); axes beyond len(begin) are kept."))


def _slice_assign_compute(ctx, a, lhs, rhs):
    out = lhs.copy()
    out[slice_ranges(lhs.shape, a["begin"], a["end"], a["step"])[0]] = rhs
    return out


def _slice_assign_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None]
    region = slice_ranges(s, a["begin"], a["end"], a["step"])[1]
    if in_shapes[1] is not None and len(in_shapes[1]) != len(region):
        raise InferError(1, region, tuple(in_shapes[1]), "the value must have the sliced region's shape")
    merge_shape(in_shapes, 1, region, "the value must have the sliced region's shape")
    return [tuple(s)]


register(OpDef("_slice_assign", aliases=("_crop_assign",), inputs=("lhs", "rhs"), family="shape",
               attrs=dict(SLICE_ATTRS), compute=_slice_assign_compute, infer_shape=_slice_assign_infer,
               grad=lambda F, a, ins, outs, og: [F._slice_assign_scalar(og[0], scalar=0.0, **_slice_kw(a)),
                                                 F.slice(og[0], **_slice_kw(a))],
               doc="A copy of lhs whose slice (begin, end, step) is replaced by rhs."))


def _region_checked(a, shape):
    """``shape`` after checking that the slice attributes fit it."""
    slice_ranges(shape, a["begin"], a["end"], a["step"])
    return tuple(shape)


def _slice_assign_scalar_compute(ctx, a, x):
    out = x.copy()
    out[slice_ranges(x.shape, a["begin"], a["end"], a["step"])[0]] = a["scalar"]
    return out


register(OpDef("_slice_assign_scalar", aliases=("_crop_assign_scalar",), family="shape",
               attrs={"scalar": Attr("float", 0.0), **SLICE_ATTRS}, compute=_slice_assign_scalar_compute,
               infer_shape=lambda a, s: [None if s[0] is None else _region_checked(a, s[0])],
               grad=lambda F, a, ins, outs, og: [F._slice_assign_scalar(og[0], scalar=0.0, **_slice_kw(a))],
               doc="A copy of data whose slice (begin, end, step) is set to `scalar`."))


# ---- slice_axis / slice_like -------------------------------------------------------------------
def _axis_range(a, s):
    axis = normalize_axis(a["axis"], len(s))
    n = s[axis]
    b = a["begin"] + n if a["begin"] < 0 else a["begin"]
    e = n if a["end"] is None else (a["end"] + n if a["end"] < 0 else a["end"])
    if n and not (0 <= b <= e <= n):       # begin == end: an empty slice (NumPy's x[3:3], split's sections)
        raise InferError(0, f"with axis {axis} containing begin={a['begin']} <= end={a['end']}", tuple(s))
    return axis, b, e


def _slice_axis_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None]
    axis, b, e = _axis_range(a, s)
    out = list(s)
    out[axis] = e - b if s[axis] else 0
    return [tuple(out)]


def _slice_axis_compute(ctx, a, x):
    axis, b, e = _axis_range(a, x.shape)
    return x[(slice(None),) * axis + (slice(b, e),)].copy()


def _slice_axis_grad(F, a, inputs, outputs, ograds):
    axis = normalize_axis(a["axis"], inputs[0].ndim)
    pad = (None,) * axis
    return [F._slice_assign(F.zeros_like(inputs[0]), ograds[0], begin=pad + (a["begin"],), end=pad + (a["end"],))]


register(OpDef("slice_axis", family="shape", attrs={"axis": Attr("int"), "begin": Attr("int"), "end": Attr("int?")},
               compute=_slice_axis_compute, infer_shape=_slice_axis_infer, grad=_slice_axis_grad,
               doc="Slice [begin, end) along `axis` (negative values count from the end; end=None = to the end)."))


def _slice_like_out(a, s, like):
    out = list(s)
    axes = a["axes"]
    if not axes:
        if len(s) != len(like):
            raise InferError(1, f"of {len(s)} dimensions (slice_like slices all axes by default)",
                             tuple(like))
        axes = range(len(s))
    for ax in axes:
        ax = normalize_axis(ax, len(s))
        if ax >= len(like):
            raise InferError(1, f"with an axis {ax}", tuple(like))
        if s[ax] and like[ax] > s[ax]:
            raise InferError(1, f"with axis {ax} no longer than the data's ({s[ax]})", tuple(like))
        out[ax] = like[ax]
    return tuple(out)


register(OpDef("slice_like", inputs=("data", "shape_like"), family="shape", attrs={"axes": Attr("shape", ())},
               compute=lambda ctx, a, x, like: x[tuple(
                   slice(0, d) for d in _slice_like_out(a, x.shape, like.shape))].copy(),
               infer_shape=lambda a, s: [None if s[0] is None or s[1] is None else _slice_like_out(a, s[0], s[1])],
               grad=lambda F, a, ins, outs, og: [F._slice_assign(F.zeros_like(ins[0]), og[0], begin=(0,) * ins[0].ndim,
                                                                 end=tuple(outs[0].shape)), None],
               doc="Slice data from the start to shape_like's size on `axes` (all axes when empty)."))


# ---- broadcast_to / broadcast_like / broadcast_axis ---------------------------------------------
def _bcast_check(s, out, arg=0):
    for d, o in zip(s, out):
        if d and o and d != o and d != 1:
            raise InferError(arg, f"broadcastable to {tuple(out)}", tuple(s))


def _broadcast_to_out(a, s):
    target = tuple(a["shape"])
    if len(target) < len(s):
        raise InferError(0, f"at most {len(target)} dimensions (broadcast_to shape={target})", tuple(s))
    padded = (1,) * (len(target) - len(s)) + tuple(s)
    out = tuple(p if t == 0 else t for t, p in zip(target, padded))
    _bcast_check(padded, out)
    return out


def _grad_sum_like(F, a, inputs, outputs, ograds):
    return [F._reduce_sum_like(ograds[0], inputs[0])] + [None] * (len(inputs) - 1)


register(OpDef("broadcast_to", family="shape",
               attrs={"shape": Attr("shape", ())},
               compute=lambda ctx, a, x: ctx.xp.broadcast_to(x, _broadcast_to_out(a, x.shape)).copy(),
               infer_shape=lambda a, s: [None if s[0] is None else _broadcast_to_out(a, s[0])], grad=_grad_sum_like,
               doc="Broadcast size-1 axes to `shape` (0 keeps the input's dimension)."))


def _np_broadcast_to_out(a, s):
    """NumPy's rule (MXNet's ``NumpyBroadcastToShape``): ``shape`` aligned with the input's trailing
    axes, 0 is a size like any other, -2 keeps the input's dimension."""
    target = list(a["shape"])
    if len(target) < len(s):
        raise InferError(0, f"at most {len(target)} dimensions (broadcast_to shape={tuple(target)})", tuple(s))
    lead = len(target) - len(s)
    for j, d in enumerate(s):
        if target[lead + j] == -2:
            target[lead + j] = d
        if d != target[lead + j] and d != 1:
            raise InferError(0, f"broadcastable to {tuple(target)}", tuple(s))
    if any(t < 0 for t in target):
        raise InferError(0, f"a known target shape (broadcast_to shape={tuple(a['shape'])})", tuple(s))
    return tuple(target)


register(OpDef("_npi_broadcast_to", family="shape", np=NsName("broadcast_to", args=("shape",)),
               inputs=("array",), attrs={"shape": Attr("shape", ())},
               compute=lambda ctx, a, x: ctx.xp.broadcast_to(x, _np_broadcast_to_out(a, x.shape)).copy(),
               infer_shape=lambda a, s: [None if s[0] is None else _np_broadcast_to_out(a, s[0])],
               grad=_grad_sum_like,
               doc="NumPy broadcast_to: size-1 and missing leading axes grow to `shape` (0 is a size; "
                   "-2 keeps the input's dimension)."))


def _broadcast_like_out(a, l, r):
    la, ra = a["lhs_axes"], a["rhs_axes"]
    if la is None and ra is None:
        if len(l) != len(r):
            raise InferError(0, f"of {len(r)} dimensions (as rhs {tuple(r)})", tuple(l))
        out = tuple(r)
    else:
        if (la is not None and not la) or (ra is not None and not ra):   # MXNet: empty axes are refused
            raise InferError(1, "non-empty lhs_axes and rhs_axes (or both None)", f"{la} and {ra}")
        la, ra = la or (), ra or ()
        if len(la) != len(ra):
            raise InferError(1, "lhs_axes and rhs_axes of equal length", f"{tuple(la)} and {tuple(ra)}")
        out = list(l)
        for x, y in zip(la, ra):
            out[normalize_axis(x, len(l))] = r[normalize_axis(y, len(r), 1)]
        out = tuple(out)
    _bcast_check(l, out)
    return out


register(OpDef("broadcast_like", inputs=("lhs", "rhs"), family="shape", npx="broadcast_like",
               attrs={"lhs_axes": Attr("shape?", None), "rhs_axes": Attr("shape?", None)},
               compute=lambda ctx, a, l, r: ctx.xp.broadcast_to(l, _broadcast_like_out(a, l.shape, r.shape)).copy(),
               infer_shape=lambda a, s: [None if s[0] is None or s[1] is None else _broadcast_like_out(a, s[0], s[1])],
               grad=_grad_sum_like, doc="Broadcast lhs to rhs's shape (or lhs_axes to the sizes of rhs_axes)."))


def _broadcast_axis_out(a, s):
    axes, sizes = a["axis"], a["size"]
    if len(axes) != len(sizes):
        raise InferError(0, "axis and size of equal length", f"axis={tuple(axes)}, size={tuple(sizes)}")
    out = list(s)
    for ax, n in zip(axes, sizes):
        ax = normalize_axis(ax, len(s))
        if s[ax] not in (1, 0):
            raise InferError(0, f"with size 1 on axis {ax} to broadcast", tuple(s))
        out[ax] = n
    return tuple(out)


register(OpDef("broadcast_axis", aliases=("broadcast_axes",), family="shape",
               attrs={"axis": Attr("shape", ()), "size": Attr("shape", ())},
               compute=lambda ctx, a, x: ctx.xp.broadcast_to(x, _broadcast_axis_out(a, x.shape)).copy(),
               infer_shape=lambda a, s: [None if s[0] is None else _broadcast_axis_out(a, s[0])], grad=_grad_sum_like,
               doc="Broadcast the size-1 axes `axis` to the sizes `size`."))


# ---- reverse -----------------------------------------------------------------------------------
def _rev_axes(a, nd):
    if a["axis"] is None:
        return tuple(range(nd))
    return tuple(normalize_axis(ax, nd) for ax in a["axis"])


def _reverse_infer(a, in_shapes):
    s = in_shapes[0]
    if s is not None:
        _rev_axes(a, len(s))
    return [None if s is None else tuple(s)]


def _reverse_op(name, attr, aliases=(), np=(), doc=""):
    return register(OpDef(name, family="shape", aliases=aliases, np=np, attrs={"axis": attr},
                          compute=lambda ctx, a, x: ctx.xp.flip(x, axis=_rev_axes(a, x.ndim)).copy(),
                          infer_shape=_reverse_infer,
                          grad=lambda F, a, ins, outs, og: [getattr(F, name)(og[0], axis=a["axis"])], doc=doc))


_reverse_op("reverse", Attr("shape?", REQUIRED, doc="axes to reverse (None = all)"), aliases=("flip",),
            doc="Reverse the order of elements along `axis`.")
_reverse_op("_np_flip", Attr("shape?", None, doc="axes to reverse (None = all)"),
            np=NsName("flip", args=("axis",)), doc="NumPy flip: reverse along `axis` (every axis when None).")


# ---- Pad ---------------------------------------------------------------------------------------
def _pad_pairs(a, s):
    pw = a["pad_width"]
    if len(pw) != 2 * len(s):
        raise InferError(0, f"of {len(pw) // 2} dimensions (pad_width has {len(pw)} values, two "
                            "per axis)", tuple(s))
    pairs = [(pw[2 * i], pw[2 * i + 1]) for i in range(len(s))]
    for i, (lo, hi) in enumerate(pairs):
        if lo < 0 or hi < 0:
            raise InferError(0, "non-negative pad widths", f"pad_width={tuple(pw)}")
        if a["mode"] == "reflect" and s[i] and (lo >= s[i] or hi >= s[i]):
            raise InferError(0, f"with axis {i} longer than its reflect padding ({lo}, {hi})", tuple(s))
    return pairs


def _pad_compute(ctx, a, x):
    pairs = _pad_pairs(a, x.shape)
    if a["mode"] == "constant":
        return ctx.xp.pad(x, pairs, mode="constant", constant_values=a["constant_value"])
    return ctx.xp.pad(x, pairs, mode=a["mode"])


def _pad_infer(a, in_shapes):
    s = in_shapes[0]
    return [None if s is None else tuple(d + lo + hi for d, (lo, hi) in zip(s, _pad_pairs(a, s)))]


_PAD_ATTRS = {"mode": Attr("enum", "constant", choices=("constant", "edge", "reflect")),
              "pad_width": Attr("shape", doc="(before0, after0, before1, after1, ...)"),
              "constant_value": Attr("float", 0.0)}


def _pad_kw(a):
    return {"mode": a["mode"], "pad_width": a["pad_width"]}


register(OpDef("Pad", aliases=("pad",), family="shape", attrs=dict(_PAD_ATTRS), compute=_pad_compute,
               infer_shape=_pad_infer, grad=lambda F, a, ins, outs, og: [F._backward_Pad(og[0], **_pad_kw(a))],
               doc="Pad with a constant, the edge values, or a reflection; pad_width gives (before, after) "
                   "for every axis."))


def _pad_backward_compute(ctx, a, g):
    pw = a["pad_width"]
    for axis in range(g.ndim):
        lo, hi = pw[2 * axis], pw[2 * axis + 1]
        n = g.shape[axis] - lo - hi

        def sl(b, e, axis=axis):
            return (slice(None),) * axis + (slice(b, e),)
        out = g[sl(lo, lo + n)].copy()
        if a["mode"] == "edge":
            if lo:
                out[sl(0, 1)] += g[sl(0, lo)].sum(axis=axis, keepdims=True)
            if hi:
                out[sl(n - 1, n)] += g[sl(lo + n, lo + n + hi)].sum(axis=axis, keepdims=True)
        elif a["mode"] == "reflect":
            if lo:
                out[sl(1, lo + 1)] += ctx.xp.flip(g[sl(0, lo)], axis=axis)
            if hi:
                out[sl(n - 1 - hi, n - 1)] += ctx.xp.flip(g[sl(lo + n, lo + n + hi)], axis=axis)
        g = out
    return g


def _pad_backward_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None]
    pw = a["pad_width"]
    if len(pw) != 2 * len(s) or any(d and d - pw[2 * i] - pw[2 * i + 1] < 1 for i, d in enumerate(s)):
        raise InferError(0, f"padded to match pad_width={tuple(pw)}", tuple(s))
    return [tuple(d - pw[2 * i] - pw[2 * i + 1] if d else 0 for i, d in enumerate(s))]


register(OpDef("_backward_Pad", family="shape", hidden=True, attrs={k: _PAD_ATTRS[k] for k in ("mode", "pad_width")},
               compute=_pad_backward_compute, infer_shape=_pad_backward_infer,
               grad=lambda F, a, ins, outs, og: [F.Pad(og[0], constant_value=0.0, **_pad_kw(a))],
               doc="Gradient of Pad: the padded gradient folded back onto the input (the adjoint of Pad)."))


# ---- depth_to_space / space_to_depth -----------------------------------------------------------
def _d2s(x, b, inverse):
    n, c, h, w = x.shape
    if inverse:
        return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(n, c * b * b, h // b, w // b)
    return x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // (b * b), h * b, w * b)


def _d2s_infer(a, in_shapes, inverse):
    s, b = in_shapes[0], a["block_size"]
    if s is None:
        return [None]
    if len(s) != 4 or b < 1:
        raise InferError(0, "4-D (N, C, H, W) with block_size >= 1", tuple(s))
    if legacy_zero_size(s):     # MXNet 1.x: a 0 is an unknown size outside NumPy shape semantics
        raise InferError(0, "a shape without zero sizes (outside mx.util.np_shape())", tuple(s))
    n, c, h, w = s
    if inverse:
        if h % b or w % b:
            raise InferError(0, f"with H and W divisible by block_size={b}", tuple(s))
        return [(n, c * b * b, h // b, w // b)]
    if c % (b * b):
        raise InferError(0, f"with C divisible by block_size**2={b * b}", tuple(s))
    return [(n, c // (b * b), h * b, w * b)]


for _name, _inv, _other, _doc in (
        ("depth_to_space", False, "space_to_depth", "Move blocks of depth into space: (N, C, H, W) -> "
                                                    "(N, C/b^2, H*b, W*b) (DCR order, as MXNet)."),
        ("space_to_depth", True, "depth_to_space", "Move b x b spatial blocks into depth: (N, C, H, W) -> "
                                                   "(N, C*b^2, H/b, W/b); the inverse of depth_to_space.")):
    register(OpDef(_name, family="shape", npx=_name, attrs={"block_size": Attr("int")},
                   compute=(lambda inv: lambda ctx, a, x: _d2s(x, a["block_size"], inv).copy())(_inv),
                   infer_shape=(lambda inv: lambda a, s: _d2s_infer(a, s, inv))(_inv),
                   grad=(lambda other: lambda F, a, ins, outs, og: [
                       getattr(F, other)(og[0], block_size=a["block_size"])])(_other),
                   doc=_doc))
