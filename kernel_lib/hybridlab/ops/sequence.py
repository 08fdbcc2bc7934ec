"""Variable-length sequence ops (MXNet 1.9's ``src/operator/sequence_*.cc``): ``SequenceMask``,
``SequenceLast``, ``SequenceReverse`` (npx ``sequence_mask`` / ``sequence_last`` /
``sequence_reverse``) and the hidden ``_backward_SequenceLast``.

``data`` is (max_sequence_length, batch, ...) with ``axis=0`` or (batch, max_sequence_length, ...)
with ``axis=1`` (SequenceReverse: axis 0 only). With ``use_sequence_length=True`` a second input
``sequence_length`` (batch,) gives each sequence's length (any dtype; values are truncated to
integers as MXNet's kernels do); without it every sequence has the full length and
``sequence_length`` is not an input.

  * SequenceMask: steps at or past each length are set to ``value``; the rest pass through.
  * SequenceLast: the step ``length - 1`` of each sequence; the sequence axis is removed.
  * SequenceReverse: the first ``length`` steps of each sequence in reverse order; padding steps
    stay where they are.

Gradients flow to ``data`` only (``sequence_length`` gets none): SequenceMask's is the masked
head gradient (value 0), SequenceReverse's the reversed head gradient, SequenceLast's the head
gradient scattered back to the last valid steps (``_backward_SequenceLast``).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.arange(6).reshape((3, 2))            # (T=3, N=2)
    >>> L = mx.nd.array([1, 3])
    >>> mx.nd.SequenceMask(x, L, use_sequence_length=True, value=-1).asnumpy().tolist()
    [[0.0, 1.0], [-1.0, 3.0], [-1.0, 5.0]]
    >>> mx.nd.SequenceLast(x, L, use_sequence_length=True).asnumpy().tolist()
    [0.0, 5.0]
    >>> mx.nd.SequenceReverse(x, mx.nd.array([2, 3]), use_sequence_length=True).asnumpy().tolist()
    [[2.0, 5.0], [0.0, 3.0], [4.0, 1.0]]
"""
from .attrs import Attr
from .infer import InferError, merge_shape
from .registry import OpDef, register
from .select_cpu import select

_USE = Attr("bool", False, doc="If True, use the sequence_length input; else every sequence has the full length.")


def _axis_attr(only_zero=False):
    return Attr("int", 0, doc="The sequence axis. " + ("Only 0 is currently supported." if only_zero else
                                                        "Only 0 and 1 are currently supported."))


def _inputs(a):
    return ("data", "sequence_length") if a["use_sequence_length"] else ("data",)


def _check(a, dshape, only_zero=False):
    """(sequence axis, batch axis) after checking the rank and the axis."""
    allowed = (0,) if only_zero else (0, 1)
    if a["axis"] not in allowed:
        raise InferError(0, f"axis in {allowed}", f"axis={a['axis']}", "unsupported sequence axis")
    if len(dshape) < 2:
        raise InferError(0, "a shape of rank 2 or more (sequence, batch, ...)", tuple(dshape),
                         "the data array must be of rank 2 or greater")
    return a["axis"], 1 - a["axis"]


def _shape_fn(drop_axis=False, only_zero=False):
    def infer(a, in_shapes):
        d = in_shapes[0]
        if d is None:
            return [None]
        ax, bax = _check(a, d, only_zero)
        if a["use_sequence_length"]:
            merge_shape(in_shapes, 1, (d[bax],), "sequence_length must be (batch,)")
        return [tuple(d[:ax]) + tuple(d[ax + 1:]) if drop_axis else tuple(d)]
    return infer


def _seq_type(a, dtypes):
    """Output in the data's dtype; an unknown sequence_length dtype becomes the data's (as MXNet)."""
    for i in range(1, len(dtypes)):
        if dtypes[i] is None:
            dtypes[i] = dtypes[0]
    return [dtypes[0]]


def _lengths(xp, a, data, length):
    """Integer lengths, one per sequence (the full length without use_sequence_length)."""
    ax = a["axis"]
    if a["use_sequence_length"]:
        return length.astype("int64")
    return xp.full((data.shape[1 - ax],), data.shape[ax], dtype="int64")


def _step_mask(xp, a, data, lengths):
    """Boolean (T, N, 1..) / (N, T, 1..) mask: True where the step index is below the length."""
    ax = a["axis"]
    t = xp.arange(data.shape[ax])
    m = (t[:, None] < lengths[None, :]) if ax == 0 else (t[None, :] < lengths[:, None])
    return m.reshape(m.shape + (1,) * (data.ndim - 2))


def _len_kw(a):
    return {"use_sequence_length": a["use_sequence_length"], "axis": a["axis"]}


def _with_len(ins, a):
    return list(ins[1:2]) if a["use_sequence_length"] else []


# ---- SequenceMask ------------------------------------------------------------------------------
def _mask_compute(ctx, a, data, length=None):
    xp = ctx.xp
    if not a["use_sequence_length"]:
        return data.copy()
    m = _step_mask(xp, a, data, _lengths(xp, a, data, length))
    return select(xp, m, data, xp.asarray(a["value"], dtype=data.dtype)).astype(data.dtype, copy=False)


def _mask_grad(F, a, ins, outs, og):
    g = F.SequenceMask(og[0], *_with_len(ins, a), value=0.0, **_len_kw(a))
    return [g, None] if a["use_sequence_length"] else [g]


register(OpDef(
    "SequenceMask", family="nn", npx="sequence_mask", inputs=_inputs, all_inputs=("data", "sequence_length"),
    attrs={"use_sequence_length": _USE, "value": Attr("float", 0.0, doc="The value to be used as padding."),
           "axis": _axis_attr()},
    compute=_mask_compute, infer_shape=_shape_fn(), infer_type=_seq_type, grad=_mask_grad,
    doc="Sets the steps at or past each sequence's length to ``value`` (data (T, N, ..) with axis 0, "
        "(N, T, ..) with axis 1)."))


# ---- SequenceLast ------------------------------------------------------------------------------
def _last_index(xp, a, data, length):
    ax = a["axis"]
    last = _lengths(xp, a, data, length) - 1
    batch = xp.arange(data.shape[1 - ax])
    return (last, batch) if ax == 0 else (batch, last)


def _last_compute(ctx, a, data, length=None):
    return data[_last_index(ctx.xp, a, data, length)]


def _last_grad(F, a, ins, outs, og):
    g = F._backward_SequenceLast(og[0], ins[0], *_with_len(ins, a), **_len_kw(a))
    return [g, None] if a["use_sequence_length"] else [g]


register(OpDef(
    "SequenceLast", family="nn", npx="sequence_last", inputs=_inputs, all_inputs=("data", "sequence_length"),
    attrs={"use_sequence_length": _USE, "axis": _axis_attr()},
    compute=_last_compute, infer_shape=_shape_fn(drop_axis=True), infer_type=_seq_type,
    grad=_last_grad,
    doc="The last valid step of each sequence: (T, N, ..) -> (N, ..) with axis 0, (N, T, ..) -> (N, ..) "
        "with axis 1."))


def _blast_inputs(a):
    return ("ograd", "data", "sequence_length") if a["use_sequence_length"] else ("ograd", "data")


def _blast_compute(ctx, a, og, data, length=None):
    xp = ctx.xp
    out = xp.zeros(data.shape, dtype=og.dtype)
    out[_last_index(xp, a, data, length)] = og
    return out


def _blast_infer(a, in_shapes):
    d = in_shapes[1]
    if d is None:
        return [None]
    fwd = [d] + list(in_shapes[2:])
    (oshape,) = _shape_fn(drop_axis=True)(a, fwd)
    in_shapes[2:] = fwd[1:]
    merge_shape(in_shapes, 0, oshape, "the gradient must have SequenceLast's output shape")
    return [tuple(d)]


def _blast_grad(F, a, ins, outs, og):
    g = F.SequenceLast(og[0], *list(ins[2:3]), **_len_kw(a))
    return [g, None, None] if a["use_sequence_length"] else [g, None]


register(OpDef(
    "_backward_SequenceLast", family="nn", hidden=True, inputs=_blast_inputs,
    all_inputs=("ograd", "data", "sequence_length"), attrs={"use_sequence_length": _USE, "axis": _axis_attr()},
    compute=_blast_compute, infer_shape=_blast_infer, infer_type=_seq_type, grad=_blast_grad,
    doc="Gradient of SequenceLast: ograd scattered into zeros shaped like data at each last valid step."))


# ---- SequenceReverse ---------------------------------------------------------------------------
def _reverse_compute(ctx, a, data, length=None):
    xp = ctx.xp
    T = data.shape[0]
    lengths = _lengths(xp, a, data, length)
    t = xp.arange(T)[:, None]
    # source step of each (t, n): reversed inside the valid part, unchanged in the padding
    src = xp.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)
    batch = xp.arange(data.shape[1])[None, :]
    return data[src, batch]


def _reverse_grad(F, a, ins, outs, og):
    g = F.SequenceReverse(og[0], *_with_len(ins, a), **_len_kw(a))
    return [g, None] if a["use_sequence_length"] else [g]


register(OpDef(
    "SequenceReverse", family="nn", npx="sequence_reverse", inputs=_inputs,
    all_inputs=("data", "sequence_length"), attrs={"use_sequence_length": _USE, "axis": _axis_attr(True)},
    compute=_reverse_compute, infer_shape=_shape_fn(only_zero=True), infer_type=_seq_type,
    grad=_reverse_grad,
    doc="Reverses the first ``sequence_length`` steps of each sequence (data (T, N, ..), axis 0); padding "
        "steps stay in place."))
