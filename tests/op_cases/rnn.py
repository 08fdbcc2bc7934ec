"""Op-checker cases for the fused recurrent op (ops/rnn.py): ``RNN`` in every mode (multi-layer,
bidirectional, projection, state clipping, sequence lengths, dropout with p=1) and its hidden
``_backward_RNN`` (against finite differences of the NumPy reference). The reference below steps
each cell with plain per-gate formulas (MXNet's cells), float64."""
import numpy as np

from op_checker import Case

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def sig(z):
    return 1 / (1 + np.exp(-z))


def unpack(params, mode, L, D, I, H, P=None):
    """{(layer, dir): weights} from the packed vector (all weights by layer/dir, then all biases)."""
    gh, hs, off, out = GATES[mode] * H, P or H, 0, {}
    for l in range(L):
        for d in range(D):
            w = out[(l, d)] = {}
            n_in = I if l == 0 else D * hs
            for name, shape in [("wi", (gh, n_in)), ("wh", (gh, hs))] + ([("wr", (P, H))] if P else []):
                w[name] = params[off:off + shape[0] * shape[1]].reshape(shape)
                off += shape[0] * shape[1]
    for l in range(L):
        for d in range(D):
            for name in ("bi", "bh"):
                out[(l, d)][name] = params[off:off + gh]
                off += gh
    assert off == params.size, (off, params.size)
    return out


def cell(mode, w, x, h, c, clip):
    hh = w["wh"] @ h + w["bh"]
    xi = w["wi"] @ x + w["bi"]
    if mode == "lstm":
        n = len(hh) // 4
        z = xi + hh
        i, f, g, o = sig(z[:n]), sig(z[n:2 * n]), np.tanh(z[2 * n:3 * n]), sig(z[3 * n:])
        c = f * c + i * g
        if clip is not None:
            c = np.clip(c, *clip)
        h = o * np.tanh(c)
        return (w["wr"] @ h if "wr" in w else h), c
    if mode == "gru":
        n = len(hh) // 3
        r, z = sig(xi[:n] + hh[:n]), sig(xi[n:2 * n] + hh[n:2 * n])
        cand = np.tanh(xi[2 * n:] + r * hh[2 * n:])
        return (1 - z) * cand + z * h, None
    a = xi + hh
    return (np.tanh(a) if mode == "rnn_tanh" else np.maximum(a, 0)), None


def ref_rnn(x, params, hx, *rest, state_size, num_layers, mode, bidirectional=False, state_outputs=False, p=0.0,
            projection_size=None, lstm_state_clip_min=None, lstm_state_clip_max=None, use_sequence_length=False,
            **_):
    x, params, hx = x.astype(np.float64), params.astype(np.float64), hx.astype(np.float64)
    rest = list(rest)
    cx = rest.pop(0).astype(np.float64) if mode == "lstm" else None
    T, N, I = x.shape
    lengths = rest.pop(0).astype(int) if use_sequence_length else np.full(N, T)
    L, D, H = num_layers, 2 if bidirectional else 1, state_size
    hs = projection_size or H
    clip = None
    if lstm_state_clip_min is not None or lstm_state_clip_max is not None:
        clip = (lstm_state_clip_min, lstm_state_clip_max)
    weights = unpack(params, mode, L, D, I, H, projection_size)
    hy, cy = np.zeros_like(hx), (np.zeros_like(cx) if cx is not None else None)
    inp = x
    for l in range(L):
        if l > 0 and p >= 1.0:    # dropout with p = 1 (training): the next layer sees zeros
            inp = np.zeros_like(inp)
        out = np.zeros((T, N, D * hs))
        for d in range(D):
            k = l * D + d
            for n in range(N):
                h, c = hx[k, n], (cx[k, n] if cx is not None else None)
                steps = range(lengths[n]) if d == 0 else range(lengths[n] - 1, -1, -1)
                for t in steps:
                    h, c = cell(mode, weights[(l, d)], inp[t, n], h, c, clip)
                    out[t, n, d * hs:(d + 1) * hs] = h
                hy[k, n] = h
                if cy is not None:
                    cy[k, n] = c
        inp = out
    if not state_outputs:
        return inp
    return (inp, hy) + ((cy,) if cy is not None else ())


def rnn_inputs(mode, T, N, I, H, L=1, D=1, P=None, seq=None):
    from hybridlab.ops.rnn import param_size
    a = {"mode": mode, "num_layers": L, "bidirectional": D == 2, "state_size": H, "projection_size": P}
    hs = P or H
    shapes = [(T, N, I), lambda rng: rng.uniform(-0.5, 0.5, param_size(a, I)), (L * D, N, hs)]
    if mode == "lstm":
        shapes.append((L * D, N, H))
    if seq is not None:
        shapes.append(np.array(seq, np.int32))
    return shapes


def rnn_case(mode, T=3, N=2, I=3, H=4, L=1, D=1, P=None, seq=None, name="", **attrs):
    attrs = dict(state_size=H, num_layers=L, mode=mode, bidirectional=D == 2, state_outputs=True, **attrs)
    if P:
        attrs["projection_size"] = P
    if seq is not None:
        attrs["use_sequence_length"] = True
    inputs = rnn_inputs(mode, T, N, I, H, L, D, P, seq)
    grad = tuple(i for i, s in enumerate(inputs) if not isinstance(s, np.ndarray))
    return Case("RNN", inputs, attrs=attrs, ref=ref_rnn, name=name or mode, grad=grad, rtol=1e-4, atol=1e-5,
                train=attrs.get("p", 0) > 0, grad_rtol=1e-4, grad_atol=1e-6)


def _backward_ref(*arrays, **attrs):
    """Input gradients of ``sum(outputs * heads)`` by central differences of the reference."""
    lstm = attrs["mode"] == "lstm"
    n_fwd = 3 + lstm + bool(attrs.get("use_sequence_length"))
    fwd, heads = [a.astype(np.float64) for a in arrays[:n_fwd]], arrays[n_fwd + 1:]
    attrs = dict(attrs, state_outputs=True)

    def objective():
        outs = ref_rnn(*fwd, **attrs)
        return sum(float((o * h).sum()) for o, h in zip(outs, heads))

    grads = []
    for i in range(3 + lstm):
        g = np.zeros_like(fwd[i])
        flat, gflat = fwd[i].reshape(-1), g.reshape(-1)
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + 1e-6
            plus = objective()
            flat[j] = orig - 1e-6
            minus = objective()
            flat[j] = orig
            gflat[j] = (plus - minus) / 2e-6
        grads.append(g)
    return tuple(grads)


def backward_case(mode, T=3, N=2, I=2, H=3, L=1, D=1):
    fwd = rnn_inputs(mode, T, N, I, H, L, D)
    hs_out = [(T, N, D * H), (L * D, N, H)] + ([(L * D, N, H)] if mode == "lstm" else [])
    reserve = np.ones((max(L - 1, 0), T, N, D * H))
    return Case("_backward_RNN", fwd + [reserve] + hs_out, name=f"{mode}_L{L}_D{D}", grad=(), rtol=1e-4, atol=2e-5,
                attrs=dict(state_size=H, num_layers=L, mode=mode, bidirectional=D == 2), ref=_backward_ref)


CASES = [
    rnn_case("lstm"),
    rnn_case("lstm", L=2, D=2, I=2, H=3, name="lstm_2layer_bidirectional"),
    rnn_case("gru", L=2, name="gru_2layer"),
    rnn_case("gru", D=2, H=3, name="gru_bidirectional"),
    rnn_case("rnn_tanh", L=2, D=2, H=3, name="tanh_2layer_bidirectional"),
    rnn_case("rnn_relu", name="relu"),
    rnn_case("lstm", H=4, P=2, L=2, name="lstm_projection"),
    rnn_case("lstm", name="lstm_clip", lstm_state_clip_min=-0.3, lstm_state_clip_max=0.3),
    rnn_case("lstm", T=4, N=3, D=2, H=3, seq=[4, 2, 1], name="lstm_sequence_length"),
    rnn_case("gru", T=4, N=2, seq=[3, 1], name="gru_sequence_length"),
    rnn_case("rnn_tanh", L=2, H=3, name="dropout_p1_training", p=1.0),
    Case("RNN", rnn_inputs("rnn_tanh", 3, 2, 3, 4), attrs=dict(state_size=4, num_layers=1, mode="rnn_tanh"),
         ref=ref_rnn, name="output_only", rtol=1e-4, atol=1e-5),
    backward_case("lstm", L=2, D=2),
    backward_case("gru"),
    backward_case("rnn_relu", L=2),
]
