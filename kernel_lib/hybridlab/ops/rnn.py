"""The fused recurrent operator ``RNN`` (modes rnn_relu, rnn_tanh, lstm, gru) and its hidden
``_backward_RNN``.

Data is (seq_length, batch, input_size) ("TNC"); all weights and biases come packed in one flat
``parameters`` vector laid out as MXNet's: first every weight, for each layer and direction (``l``
then ``r``) ``i2h_weight`` (G*H, in), ``h2h_weight`` (G*H, P or H) and, with ``projection_size``
(LSTM only), ``h2r_weight`` (P, H); then every bias, ``i2h_bias`` and ``h2h_bias`` (G*H,) per layer
and direction. G is the number of gates: 1 (rnn_*), 4 (lstm: i, f, g, o), 3 (gru: r, z, n).
``state`` is (num_layers * directions, batch, P or H) and lstm's ``state_cell`` (num_layers *
directions, batch, H); with ``use_sequence_length`` the steps of sample ``n`` at or past
``sequence_length[n]`` output zeros and leave its state unchanged (the reverse direction starts at
the last valid step).

Cells (as MXNet's CPU kernels; ``h`` the state, ``c`` the cell, ``x`` the step input):
  * rnn_tanh / rnn_relu: h' = act(W_i x + b_i + W_h h + b_h)
  * lstm: i, f, g, o = sig, sig, tanh, sig of (W_i x + b_i + W_h h + b_h); c' = f*c + i*g,
    clipped to [lstm_state_clip_min, lstm_state_clip_max] when given; h' = o * tanh(c')
    (times h2r_weight.T with a projection)
  * gru: r, z = sig(..); n = tanh(W_in x + b_in + r * (W_hn h + b_hn)); h' = (1-z)*n + z*h

In training mode with ``p > 0`` the input of every layer after the first is dropped out
(inverted dropout); the masks are the hidden last output, so the backward (``_backward_RNN``,
which recomputes the forward and runs backpropagation through time) sees the same ones.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.ones((5, 2, 3))                     # (T, N, C)
    >>> size = 4 * 4 * (3 + 4 + 2)                    # lstm, 1 layer, H = 4: (in + H + 2 biases) * 4H
    >>> out, h, c = mx.nd.RNN(x, mx.nd.ones((size,)) * 0.1, mx.nd.zeros((1, 2, 4)), mx.nd.zeros((1, 2, 4)),
    ...                       state_size=4, num_layers=1, mode='lstm', state_outputs=True)
    >>> out.shape, h.shape, c.shape
    ((5, 2, 4), (1, 2, 4), (1, 2, 4))
"""
from .attrs import Attr
from .dtype_check import check_dtypes, uniform_dtypes
from .elemwise import sigmoid
from .infer import InferError, merge_shape
from .registry import OpDef, register

__all__ = ["param_size", "param_layout"]

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


# ---- the packed parameter layout ----------------------------------------------------------------
def param_layout(a, input_size):
    """``({(layer, direction): {name: (offset, shape)}}, total size)`` of the packed parameters."""
    L, D, H, P = a["num_layers"], 2 if a["bidirectional"] else 1, a["state_size"], a["projection_size"]
    gh = GATES[a["mode"]] * H
    hs = P or H
    layout, off = {}, 0
    for l in range(L):
        in_l = input_size if l == 0 else D * hs
        for d in range(D):
            entry = layout[(l, d)] = {}
            shapes = [("i2h_weight", (gh, in_l)), ("h2h_weight", (gh, hs))] + ([("h2r_weight", (P, H))] if P else [])
            for name, shape in shapes:
                entry[name] = (off, shape)
                off += shape[0] * shape[1]
    for l in range(L):
        for d in range(D):
            for name in ("i2h_bias", "h2h_bias"):
                layout[(l, d)][name] = (off, (gh,))
                off += gh
    return layout, off


def param_size(a, input_size):
    """Length of the packed ``parameters`` vector (MXNet's ``GetRnnParamSize``)."""
    return param_layout(a, input_size)[1]


def _unpack(flat, entry):
    return {k: flat[o:o + (s[0] * s[1] if len(s) == 2 else s[0])].reshape(s) for k, (o, s) in entry.items()}


# ---- one step of one cell -----------------------------------------------------------------------
def _step(xp, a, xi_t, h, c, w):
    """One step: (new h, new c or None, what the backward needs)."""
    mode = a["mode"]
    hh = h @ w["h2h_weight"].T + w["h2h_bias"]
    if mode == "lstm":
        z = xi_t + hh
        n = z.shape[1] // 4
        i, f, o = sigmoid(xp, z[:, :n]), sigmoid(xp, z[:, n:2 * n]), sigmoid(xp, z[:, 3 * n:])
        g = xp.tanh(z[:, 2 * n:3 * n])
        c_new = f * c + i * g
        keep = None
        lo, hi = a["lstm_state_clip_min"], a["lstm_state_clip_max"]
        if lo is not None or hi is not None:
            lo = -xp.inf if lo is None else lo
            hi = xp.inf if hi is None else hi
            if a["lstm_state_clip_nan"]:
                c_new = xp.where(xp.isnan(c_new), c_new.dtype.type(lo if xp.isfinite(lo) else 0), c_new)
            keep = ((c_new >= lo) & (c_new <= hi)).astype(c_new.dtype)
            c_new = xp.clip(c_new, lo, hi)
        tc = xp.tanh(c_new)
        r = o * tc
        h_new = r @ w["h2r_weight"].T if "h2r_weight" in w else r
        return h_new, c_new, (i, f, g, o, tc, r, keep)
    if mode == "gru":
        n = hh.shape[1] // 3
        r = sigmoid(xp, xi_t[:, :n] + hh[:, :n])
        z = sigmoid(xp, xi_t[:, n:2 * n] + hh[:, n:2 * n])
        hn = hh[:, 2 * n:]
        cand = xp.tanh(xi_t[:, 2 * n:] + r * hn)
        return (1 - z) * cand + z * h, None, (r, z, cand, hn)
    pre = xi_t + hh
    h_new = xp.tanh(pre) if mode == "rnn_tanh" else xp.maximum(pre, 0)
    return h_new, None, (h_new,)


def _step_backward(xp, a, st, h_prev, c_prev, dh, dc, w, dw):
    """Backward of one step: (d i2h pre-activation, d h2h pre-activation, d h_prev, d c_prev)."""
    mode = a["mode"]
    if mode == "lstm":
        i, f, g, o, tc, r, keep = st
        if "h2r_weight" in w:
            dw["h2r_weight"] += dh.T @ r
            dh = dh @ w["h2r_weight"]
        do = dh * tc
        dc = dc + dh * o * (1 - tc * tc)
        if keep is not None:
            dc = dc * keep
        dz = xp.concatenate([dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g),
                             do * o * (1 - o)], axis=1)
        return dz, dz, dz @ w["h2h_weight"], dc * f
    if mode == "gru":
        r, z, cand, hn = st
        dan = dh * (1 - z) * (1 - cand * cand)
        dar = dan * hn * r * (1 - r)
        daz = dh * (h_prev - cand) * z * (1 - z)
        dzh = xp.concatenate([dar, daz, dan * r], axis=1)
        return xp.concatenate([dar, daz, dan], axis=1), dzh, dh * z + dzh @ w["h2h_weight"], None
    (h_new,) = st
    da = dh * (1 - h_new * h_new) if mode == "rnn_tanh" else dh * (h_new > 0)
    return da, da, da @ w["h2h_weight"], None


# ---- one direction of one layer -----------------------------------------------------------------
def _order(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def _run_direction(xp, a, xi, h, c, w, valid, reverse, cache):
    """Run the cell over the sequence: (outputs (T, N, Hs), last h, last c); ``cache`` (a list or
    None) receives (h_prev, c_prev, step state) per time step."""
    T = xi.shape[0]
    ys = xp.empty((T, h.shape[0], h.shape[1]), dtype=xi.dtype)
    for t in _order(T, reverse):
        h_new, c_new, st = _step(xp, a, xi[t], h, c, w)
        if cache is not None:
            cache[t] = (h, c, st)
        if valid is not None:   # steps past a sample's length: zero output, state unchanged
            v = valid[t]
            ys[t] = h_new * v
            h_new = v * h_new + (1 - v) * h
            if c_new is not None:
                c_new = v * c_new + (1 - v) * c
        else:
            ys[t] = h_new
        h, c = h_new, c_new
    return ys, h, c


def _backward_direction(xp, a, cache, dys, dh, dc, w, dw, valid, reverse):
    """Backpropagation through time: (d i2h pre-activations, d h2h pre-activations, d h0, d c0)."""
    T = len(cache)
    gh = w["h2h_weight"].shape[0]
    dzx = xp.empty((T, dys.shape[1], gh), dtype=dys.dtype)
    dzh = xp.empty_like(dzx)
    for t in reversed(list(_order(T, reverse))):
        h_prev, c_prev, st = cache[t]
        if valid is not None:
            v = valid[t]
            dh_c, carry_h = v * (dys[t] + dh), (1 - v) * dh
            dc_c, carry_c = (v * dc, (1 - v) * dc) if dc is not None else (None, 0)
        else:
            dh_c, carry_h, dc_c, carry_c = dys[t] + dh, 0, dc, 0
        dzx[t], dzh[t], dh, dc = _step_backward(xp, a, st, h_prev, c_prev, dh_c, dc_c, w, dw)
        dh = dh + carry_h
        if dc is not None:
            dc = dc + carry_c
    return dzx, dzh, dh, dc


# ---- the whole stack ----------------------------------------------------------------------------
def _valid_mask(xp, a, x, seq_len):
    if not a["use_sequence_length"]:
        return None
    steps = xp.arange(x.shape[0]).reshape(-1, 1)
    return (steps < seq_len.reshape(1, -1).astype("int64")).astype(x.dtype)[:, :, None]


def _forward(xp, a, x, params, hx, cx, seq_len, masks, caches=None):
    """The stacked forward: (output, hy, cy); ``caches`` (a list) receives each (layer, direction)'s
    (input, step cache, weights) for the backward."""
    L, D = a["num_layers"], 2 if a["bidirectional"] else 1
    layout, _ = param_layout(a, x.shape[2])
    valid = _valid_mask(xp, a, x, seq_len)
    hy = xp.empty_like(hx)
    cy = xp.empty_like(cx) if cx is not None else None
    inp = x
    for l in range(L):
        if l > 0:
            inp = inp * masks[l - 1]
        outs = []
        for d in range(D):
            k = l * D + d
            w = _unpack(params, layout[(l, d)])
            xi = inp @ w["i2h_weight"].T + w["i2h_bias"]
            cache = [None] * x.shape[0] if caches is not None else None
            ys, hy[k], c = _run_direction(xp, a, xi, hx[k], cx[k] if cx is not None else None, w, valid, d == 1,
                                          cache)
            if cy is not None:
                cy[k] = c
            if caches is not None:
                caches.append((inp, cache, w))
            outs.append(ys)
        inp = outs[0] if D == 1 else xp.concatenate(outs, axis=2)
    return inp, hy, cy


def _masks(ctx, a, x):
    """The dropout masks between layers (ones unless training with p > 0), (L-1, T, N, D*Hs)."""
    xp = ctx.xp
    D = 2 if a["bidirectional"] else 1
    shape = (max(a["num_layers"] - 1, 0), x.shape[0], x.shape[1], D * (a["projection_size"] or a["state_size"]))
    p = a["p"]
    if not ctx.is_train or p <= 0 or shape[0] == 0:
        return xp.ones(shape, dtype=x.dtype)
    rng = ctx.rng
    u = rng.random(shape) if hasattr(rng, "integers") else rng.random_sample(shape)
    return ((u >= p) / (1.0 - p)).astype(x.dtype) if p < 1 else xp.zeros(shape, dtype=x.dtype)


def _split_inputs(a, arrays):
    """(data, parameters, state, state_cell or None, sequence_length or None, rest)."""
    it = iter(arrays)
    x, params, hx = next(it), next(it), next(it)
    cx = next(it) if a["mode"] == "lstm" else None
    seq = next(it) if a["use_sequence_length"] else None
    return x, params, hx, cx, seq, list(it)


def _rnn_compute(ctx, a, *arrays):
    x, params, hx, cx, seq, _ = _split_inputs(a, arrays)
    if params.dtype != x.dtype or hx.dtype != x.dtype or (cx is not None and cx.dtype != x.dtype):
        check_dtypes(_rnn_types, a, *arrays)
    masks = _masks(ctx, a, x)
    out, hy, cy = _forward(ctx.xp, a, x, params, hx, cx, seq, masks)
    return (out, hy) + ((cy,) if cy is not None else ()) + (masks,)


def _rnn_backward_compute(ctx, a, *arrays):
    xp = ctx.xp
    x, params, hx, cx, seq, rest = _split_inputs(a, arrays)
    masks, dy, dhy = rest[0], rest[1], rest[2]
    dcy = rest[3] if cx is not None else None
    L, D = a["num_layers"], 2 if a["bidirectional"] else 1
    caches = []
    _forward(xp, a, x, params, hx, cx, seq, masks, caches)
    layout, _ = param_layout(a, x.shape[2])
    valid = _valid_mask(xp, a, x, seq)
    dparams = xp.zeros_like(params)
    dhx, dcx = xp.empty_like(hx), (xp.empty_like(cx) if cx is not None else None)
    hs = hx.shape[2]
    dinp = dy
    for l in reversed(range(L)):
        dnext = None
        for d in range(D):
            k = l * D + d
            inp, cache, w = caches[k]
            dw = _unpack(dparams, layout[(l, d)])   # views into dparams: written in place
            dzx, dzh, dhx[k], dc0 = _backward_direction(
                xp, a, cache, dinp[:, :, d * hs:(d + 1) * hs], dhy[k], dcy[k] if dcy is not None else None,
                w, dw, valid, d == 1)
            if dcx is not None:
                dcx[k] = dc0
            gh = dzx.shape[2]
            h_prev = xp.stack([cache[t][0] for t in range(len(cache))])
            dw["i2h_weight"] += dzx.reshape(-1, gh).T @ inp.reshape(-1, inp.shape[2])
            dw["i2h_bias"] += dzx.sum(axis=(0, 1))
            dw["h2h_weight"] += dzh.reshape(-1, gh).T @ h_prev.reshape(-1, hs)
            dw["h2h_bias"] += dzh.sum(axis=(0, 1))
            dx = dzx @ w["i2h_weight"]
            dnext = dx if dnext is None else dnext + dx
        dinp = dnext * masks[l - 1] if l > 0 else dnext
    return (dinp.astype(x.dtype, copy=False), dparams, dhx) + ((dcx,) if dcx is not None else ())


# ---- inference ----------------------------------------------------------------------------------
def _dims(a):
    D = 2 if a["bidirectional"] else 1
    return a["num_layers"], D, a["state_size"], a["projection_size"] or a["state_size"]


def _check_inputs(a, s):
    """Check/fill the parameter, state and sequence_length shapes from data's; (T, N, I) or None."""
    d = s[0]
    if d is None:
        return None
    if len(d) != 3:
        raise InferError(0, "(sequence length, batch size, input size): 3 dimensions (layout TNC)", tuple(d))
    if a["projection_size"] is not None and a["mode"] != "lstm":
        raise InferError(1, "no projection_size", a["projection_size"], "projection is only supported for lstm")
    T, N, I = d
    L, D, H, hs = _dims(a)
    if I:
        size = param_size(a, I)
        merge_shape(s, 1, (size,), lambda: f"the packed parameters of a {a['mode']} with {L} layer(s), "
                                           f"{D} direction(s), input size {I} and state size {H} have {size} values")
    merge_shape(s, 2, (L * D, N, hs), "state is (num_layers * directions, batch size, state size)")
    i = 3
    if a["mode"] == "lstm":
        merge_shape(s, 3, (L * D, N, H), "state_cell is (num_layers * directions, batch size, state size)")
        i = 4
    if a["use_sequence_length"]:
        merge_shape(s, i, (N,), "sequence_length has one length per batch element")
    return T, N, I


def _rnn_infer(a, s):
    dims = _check_inputs(a, s)
    lstm = a["mode"] == "lstm"
    if dims is None:
        return [None] * (4 if lstm else 3)
    T, N, _ = dims
    L, D, H, hs = _dims(a)
    return [(T, N, D * hs), (L * D, N, hs)] + ([(L * D, N, H)] if lstm else []) + [(max(L - 1, 0), T, N, D * hs)]


def _seq_index(a):
    """The sequence_length input, which may have any (integer) dtype, as in MXNet."""
    return ((4 if a["mode"] == "lstm" else 3),) if a["use_sequence_length"] else ()


# MXNet: data, parameters and states share the data's dtype
_rnn_types = uniform_dtypes("RNN", n_out=lambda a: 4 if a["mode"] == "lstm" else 3, skip=_seq_index)


def _backward_infer(a, s):
    n_fwd = len(_input_names(a))
    fwd = s[:n_fwd]
    dims = _check_inputs(a, fwd)
    s[:n_fwd] = fwd
    if dims is None:
        return [None] * (n_fwd - int(a["use_sequence_length"]))
    out = _rnn_infer(a, list(fwd))
    for j, shape in enumerate([out[-1]] + out[:-1]):
        merge_shape(s, n_fwd + j, shape, "the head gradients have the shapes of the RNN's outputs")
    return [tuple(x) for x in fwd[:4 if a["mode"] == "lstm" else 3]]


def _backward_types(a, d):
    n = 4 if a["mode"] == "lstm" else 3
    return [d[0]] * n


def _input_names(a):
    return ("data", "parameters", "state") + (("state_cell",) if a["mode"] == "lstm" else ()) + \
        (("sequence_length",) if a["use_sequence_length"] else ())


def _rnn_grad(F, a, ins, outs, og):
    lstm = a["mode"] == "lstm"
    heads = list(og[:3 if lstm else 2])
    res = F._backward_RNN(*ins, outs[-1], *heads, **{k: v for k, v in a.items() if v is not None})
    grads = [res[i] for i in range(4 if lstm else 3)]
    return grads + ([None] if a["use_sequence_length"] else [])


_ATTRS = {
    "state_size": Attr("int", doc="Number of hidden units (H)."),
    "num_layers": Attr("int", doc="Number of stacked layers."),
    "bidirectional": Attr("bool", False, doc="Also run every layer backwards in time (outputs concatenated)."),
    "mode": Attr("enum", choices=("gru", "lstm", "rnn_relu", "rnn_tanh"), doc="The recurrent cell."),
    "p": Attr("float", 0.0, doc="Dropout probability on the inputs of layers after the first (training)."),
    "state_outputs": Attr("bool", False, doc="Also output the final states."),
    "projection_size": Attr("int?", None, doc="LSTM only: project the hidden state to this size (LSTMP)."),
    "lstm_state_clip_min": Attr("float?", None, doc="Clip the LSTM cell state from below."),
    "lstm_state_clip_max": Attr("float?", None, doc="Clip the LSTM cell state from above."),
    "lstm_state_clip_nan": Attr("bool", False, doc="With clipping: NaN cell states become the minimum."),
    "use_sequence_length": Attr("bool", False, doc="Take a (batch,) sequence_length input (variable lengths)."),
}
# MXNet: p in [0, 1]; sizes of 0 layers or units describe no network
_BOUNDS = {"state_size": (1, None), "num_layers": (1, None), "p": (0, 1), "projection_size": (1, None)}
_ALL_INPUTS = ("data", "parameters", "state", "state_cell", "sequence_length")


def _visible(a):
    return (3 if a["mode"] == "lstm" else 2) if a["state_outputs"] else 1


register(OpDef(
    "RNN", family="rnn", npx="rnn", inputs=_input_names, all_inputs=_ALL_INPUTS, attrs=dict(_ATTRS),
    bounds=_BOUNDS,
    num_outputs=lambda a: 4 if a["mode"] == "lstm" else 3, num_visible=_visible,
    output_names=lambda a: ("output", "state_output", "statecell_output")[:_visible(a)],
    needs_train=True, needs_rng=True,
    compute=_rnn_compute, infer_shape=_rnn_infer, infer_type=_rnn_types, grad=_rnn_grad,
    doc="Fused multi-layer recurrent network over (T, N, C) data (see the module docstring for the "
        "packed parameter layout and the cells). Outputs output (T, N, D*H), and with state_outputs "
        "state_output (L*D, N, H) and (lstm) statecell_output; the hidden last output holds the "
        "between-layer dropout masks used by the backward."))

register(OpDef(
    "_backward_RNN", family="rnn", hidden=True,
    inputs=lambda a: _input_names(a) + ("reserve", "dout", "dstate_output") +
    (("dstatecell_output",) if a["mode"] == "lstm" else ()),
    all_inputs=_ALL_INPUTS + ("reserve", "dout", "dstate_output", "dstatecell_output"),
    attrs=dict(_ATTRS), bounds=_BOUNDS, num_outputs=lambda a: 4 if a["mode"] == "lstm" else 3,
    compute=_rnn_backward_compute, infer_shape=_backward_infer, infer_type=_backward_types,
    no_grad_reason="second-order gradients of the fused RNN are not implemented",
    doc="Gradient of RNN (backpropagation through time after recomputing the forward with the saved "
        "dropout masks ``reserve``): d data, d parameters, d state and (lstm) d state_cell."))
