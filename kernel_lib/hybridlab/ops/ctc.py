"""``CTCLoss`` (``ctc_loss``, ``_contrib_CTCLoss``): Connectionist Temporal Classification (Graves et
al. 2006), as MXNet 1.9.1 computes it.

``data`` (T, N, C) holds unnormalised activations (a softmax over C is applied inside), ``label``
(N, L) the label indices padded at the end. The blank class is channel 0 (``blank_label='first'``;
labels 1..C-1, padding 0) or C-1 (``'last'``; labels 0..C-2, padding -1, Gluon's ``CTCLoss``).
``data_lengths`` / ``label_lengths`` (with ``use_data_lengths`` / ``use_label_lengths``) give each
sample's frames and labels; otherwise every sample has T frames and its labels end at the first
padding value. The output is ``-log p(label | data)`` per sample, (N,).

The forward runs the alpha-beta recursions in log space over the whole batch (one vector step per
frame) and also returns, as a hidden second output like MXNet's, the loss's gradient w.r.t. ``data``:
``softmax - posterior`` (zero beyond a sample's frames); the op's gradient scales it by the output
gradient. A label that cannot fit in the sample's frames (it needs ``L + repeats`` frames) gives loss
0 and no gradient, as MXNet reports it.

Example::

    >>> import hybridlab as mx
    >>> data = mx.nd.zeros((2, 1, 3))                 # uniform over {blank, a, b} in 2 frames
    >>> round(float(mx.nd.ctc_loss(data, mx.nd.array([[1]])).asscalar()), 4)   # paths: a-, -a, aa
    1.0986
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []


def _inputs(a):
    return ("data", "label") + (("data_lengths",) if a["use_data_lengths"] else ()) + \
        (("label_lengths",) if a["use_label_lengths"] else ())


def _lengths(xp, a, label, data_lengths, label_lengths, T):
    """Per-sample frame and label counts (int64 NumPy arrays)."""
    N, L = label.shape
    frames = np.full(N, T, np.int64) if data_lengths is None else \
        np.asarray(xp.asnumpy(data_lengths) if hasattr(xp, "asnumpy") else data_lengths).astype(np.int64)
    if label_lengths is not None:
        labels = np.asarray(xp.asnumpy(label_lengths) if hasattr(xp, "asnumpy") else label_lengths).astype(np.int64)
    else:
        pad = 0 if a["blank_label"] == "first" else -1
        host = np.asarray(xp.asnumpy(label) if hasattr(xp, "asnumpy") else label)
        is_pad = host == pad
        labels = np.where(is_pad.any(axis=1), is_pad.argmax(axis=1), L).astype(np.int64)
    if (frames < 0).any() or (frames > T).any() or (labels < 0).any() or (labels > L).any():
        raise MXNetError(f"CTCLoss: expected data lengths in [0, {T}] and label lengths in [0, {L}], got "
                         f"{frames.tolist()} and {labels.tolist()}")
    return frames, labels


def _logsumexp(xp, *terms):
    top = terms[0]
    for t in terms[1:]:
        top = xp.maximum(top, t)
    safe = xp.where(xp.isfinite(top), top, 0.0)
    total = sum(xp.exp(t - safe) for t in terms)
    with np.errstate(divide="ignore"):
        return xp.where(xp.isfinite(top), xp.log(total) + safe, -np.inf)


def ctc(xp, a, data, label, data_lengths=None, label_lengths=None):
    """``(loss (N,), gradient w.r.t. data (T, N, C))`` in float64."""
    T, N, C = data.shape
    frames, nlab = _lengths(xp, a, label, data_lengths, label_lengths, T)
    blank = 0 if a["blank_label"] == "first" else C - 1
    x = data.astype(np.float64)
    logp = x - x.max(axis=2, keepdims=True)
    logp = logp - xp.log(xp.exp(logp).sum(axis=2, keepdims=True))
    L = label.shape[1]
    S = 2 * L + 1
    lab = xp.clip(label.astype(np.int64), 0, C - 1)
    ext = xp.full((N, S), blank, dtype=np.int64)
    ext[:, 1::2] = lab
    pos = xp.arange(S)
    width = xp.asarray(2 * nlab + 1)                                   # S_n
    inside = pos[None, :] < width[:, None]
    skip = xp.zeros((N, S), dtype=bool)                                # s-2 -> s allowed
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    rows = xp.arange(N)[:, None]
    emit = logp[:, rows, ext]                                          # (T, N, S)
    neg = xp.full((N, 1), -np.inf)
    t_of = xp.asarray(frames)[:, None]

    alpha = xp.full((T, N, S), -np.inf)
    alpha[0] = xp.where(inside & (pos[None, :] < 2) & (t_of > 0), emit[0], -np.inf)   # start: blank or label 1
    for t in range(1, T):
        prev = alpha[t - 1]
        step = _logsumexp(xp, prev, xp.concatenate([neg, prev[:, :-1]], axis=1),
                          xp.where(skip, xp.concatenate([neg, neg, prev[:, :-2]], axis=1), -np.inf))
        alpha[t] = xp.where(inside & (t < t_of), step + emit[t], -np.inf)

    last = xp.asarray(np.maximum(frames - 1, 0))
    a_end = alpha[last, xp.arange(N)]                                  # (N, S) at each sample's last frame
    end_a = a_end[xp.arange(N), width - 1]
    end_b = xp.where(width >= 2, a_end[xp.arange(N), xp.maximum(width - 2, 0)], -np.inf)
    logprob = _logsumexp(xp, end_a, end_b)
    possible = xp.isfinite(logprob) & (t_of[:, 0] > 0)

    beta = xp.full((T, N, S), -np.inf)
    final = (pos[None, :] == width[:, None] - 1) | (pos[None, :] == width[:, None] - 2)
    for t in range(T - 1, -1, -1):
        if t == T - 1:
            nxt = xp.full((N, S), -np.inf)
        else:
            nb = beta[t + 1]
            nxt = _logsumexp(xp, nb, xp.concatenate([nb[:, 1:], neg], axis=1),
                             xp.where(xp.concatenate([skip[:, 2:], xp.zeros((N, 2), bool)], axis=1),
                                      xp.concatenate([nb[:, 2:], neg, neg], axis=1), -np.inf))
        here = xp.where(t == t_of - 1, xp.where(final & inside, 0.0, -np.inf), nxt)
        beta[t] = xp.where(inside & (t < t_of), here + emit[t], -np.inf)

    # posterior of each (frame, class): paths through s with ext[s] = c, divided by p(label)
    gamma = alpha + beta - emit                                        # (T, N, S), log
    post = xp.zeros((T, N, C))
    weight = xp.exp(gamma - xp.where(possible, logprob, 0.0)[None, :, None])
    for s in range(S):
        cls = ext[:, s]
        post[:, xp.arange(N), cls] += weight[:, :, s]
    valid = (xp.arange(T)[:, None] < t_of[:, 0][None, :]) & possible[None, :]
    grad = xp.where(valid[:, :, None], xp.exp(logp) - post, 0.0)
    loss = xp.where(possible, -logprob, 0.0)
    return loss, grad


def _compute(ctx, a, data, label, *lengths):
    xp = ctx.xp
    rest = list(lengths)
    data_lengths = rest.pop(0) if a["use_data_lengths"] else None
    label_lengths = rest.pop(0) if a["use_label_lengths"] else None
    loss, grad = ctc(xp, a, data, label, data_lengths, label_lengths)
    return loss.astype(data.dtype), grad.astype(data.dtype)


def _infer(a, in_shapes):
    data, label = in_shapes[0], in_shapes[1]
    if data is None:
        return [None, None]
    if len(data) != 3:
        raise InferError(0, "(sequence_length, batch_size, alphabet_size)", tuple(data))
    T, N, _ = data
    if label is not None:
        if len(label) != 2 or label[0] != N:
            raise InferError(1, f"({N}, label_sequence_length)", tuple(label))
        if label[1] > T:
            raise InferError(1, f"({N}, at most {T}) labels: no more than the data's {T} frames", tuple(label))
    for k in range(2, len(in_shapes)):
        if in_shapes[k] is not None and tuple(in_shapes[k]) != (N,):
            raise InferError(k, f"({N},) (one length per sample)", tuple(in_shapes[k]))
    return [(N,), tuple(data)]


def _type(a, dtypes):
    return [dtypes[0], dtypes[0]]


def _grad(F, a, inputs, outputs, ograds):
    scale = F.reshape(ograds[0], shape=(1, -1, 1))
    return [F.broadcast_mul(outputs[1], scale)] + [None] * (len(inputs) - 1)


register(OpDef(
    "CTCLoss", inputs=_inputs, all_inputs=("data", "label", "data_lengths", "label_lengths"),
    aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"), family="loss",
    attrs={"use_data_lengths": Attr("bool", False, doc="take each sample's frame count from data_lengths"),
           "use_label_lengths": Attr("bool", False, doc="take each sample's label count from label_lengths "
                                                        "(else up to the first padding value)"),
           "blank_label": Attr("enum", "first", choices=("first", "last"),
                               doc="the blank class: channel 0 ('first', padding 0) or C-1 ('last', padding -1)")},
    compute=_compute, infer_shape=_infer, infer_type=_type, grad=_grad, num_outputs=2, num_visible=1,
    output_names=("output",),
    doc="""Connectionist Temporal Classification loss of activations ``data`` (T, N, C) for padded
labels ``label`` (N, L): ``-log p(label | data)`` per sample, with a softmax over C applied inside and
the blank class first or last (see ops/ctc.py)."""))
