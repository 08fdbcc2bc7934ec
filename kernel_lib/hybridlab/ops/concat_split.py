"""Joining and splitting along an axis: ``Concat`` (and ``_rnn_param_concat``), ``stack`` (along a new
axis), and their inverses ``SliceChannel`` (``split``: equal parts) and ``_split_v2`` (``np.split``:
equal sections or boundaries). The gradients mirror each other: Concat's slices the output gradient
(slice_axis), stack's splits it (SliceChannel), a split's concatenates the output gradients (Concat).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.zeros((2, 3))
    >>> mx.nd.concat(x, x, dim=0).shape, mx.nd.stack(x, x, axis=1).shape
    ((4, 3), (2, 2, 3))
    >>> [p.shape for p in mx.nd.split(x, num_outputs=3, axis=1)]
    [(2, 1), (2, 1), (2, 1)]
"""
from .attrs import Attr
from .infer import InferError, merge_shape, normalize_axis
from .registry import NsName, OpDef, register


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


def _concat_partial(a, in_shapes, outs, key="dim"):
    """Partial symbolic inference (MXNet's ConcatShape): every input has the output's size on every
    axis but the concatenated one."""
    out = outs[0]
    if out is None:
        return
    dim = normalize_axis(a[key], len(out))
    for i, s in enumerate(in_shapes):
        if s is None or len(s) == len(out):
            exp = list(out)
            exp[dim] = s[dim] if s is not None else 0
            merge_shape(in_shapes, i, tuple(exp), f"inputs agree with the output on every axis except {key}")


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
                          infer_shape=_concat_infer, infer_partial=_concat_partial, grad=_concat_grad,
                          doc=doc))


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


def _split_partial(a, in_shapes, outs):
    """Partial symbolic inference (MXNet's SliceChannel shape rule): the input from any output, the
    split axis ``num_outputs`` times as long (or put back when ``squeeze_axis`` removed it)."""
    data = in_shapes[0]
    if data is None:
        return
    axis = normalize_axis(a["axis"], len(data))
    k = a["num_outputs"]
    for out in outs:
        if out is None:
            continue
        if a["squeeze_axis"] and len(out) == len(data) - 1:
            back = tuple(out[:axis]) + (k,) + tuple(out[axis:])
        elif len(out) == len(data):
            back = tuple(d * k if i == axis else d for i, d in enumerate(out))
        else:
            continue
        merge_shape(in_shapes, 0, back, f"the input is the outputs joined along axis {axis}")


register(OpDef("SliceChannel", aliases=("split",), family="shape", num_outputs=_n_split,
               output_names=lambda a: tuple(f"output{i}" for i in range(a["num_outputs"])),
               attrs={"num_outputs": Attr("int"), "axis": Attr("int", 1), "squeeze_axis": Attr("bool", False)},
               bounds={"num_outputs": (1, None)},
               compute=_split_compute, infer_shape=_split_infer, infer_type=lambda a, d: [d[0]] * _n_split(a),
               infer_partial=_split_partial,
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
