"""Op-checker cases for the loss layers (ops/loss_outputs.py): SoftmaxOutput, the regression outputs
and MakeLoss.

Their backward passes are rules, not derivatives of the forward, so finite differences cannot check
them: each case carries ``grad_rule`` (the expected gradient of every input, written plainly in NumPy),
which the shared checker uses instead; ``_backward_SoftmaxOutput`` (the rule itself, a plain op) is
checked against a loop reference."""
import numpy as np

from op_checker import Case

f64 = np.float64


def softmax(x, axis):
    e = np.exp(x.astype(f64) - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def ref_softmax_output(x, label, multi_output=False, preserve_shape=False, **a):
    if multi_output:
        return softmax(x, 1)
    if preserve_shape:
        return softmax(x, -1)
    return softmax(x.reshape(x.shape[0], -1), 1).reshape(x.shape)


def ref_softmax_output_grad(out, label, ograd, grad_scale=1.0, ignore_label=-1.0, multi_output=False,
                            use_ignore=False, preserve_shape=False, normalization="null", out_grad=False,
                            smooth_alpha=0.0):
    """MXNet's SoftmaxOutput backward, written with loops over instances."""
    out = out.astype(f64)
    if label.shape == out.shape:
        g = (out - label) * grad_scale
        return g * ograd if out_grad else g
    if multi_output:
        n, k = out.shape[:2]
        o = out.reshape(n, k, -1)
        rows = [(i, j) for i in range(n) for j in range(o.shape[2])]
        lab = label.reshape(n, -1)
        get = (lambda t, i, j: t[i, :, j])
    else:
        k = out.shape[-1] if preserve_shape else out.size // out.shape[0]
        o = out.reshape(-1, k)
        rows = [(i, 0) for i in range(o.shape[0])]
        lab = label.reshape(-1, 1)
        get = (lambda t, i, j: t[i])
    g = np.zeros_like(o)
    for i, j in rows:
        c = int(lab[i, j])
        target = np.full(k, smooth_alpha / (k - 1)) if smooth_alpha > 0 else np.zeros(k)
        if 0 <= c < k:
            target[c] = 1.0 - smooth_alpha
        row = get(o, i, j) - target
        if use_ignore and c == int(ignore_label):
            row = row * 0
        get(g, i, j)[:] = row
    if normalization == "batch":
        count = lab.shape[0]
    elif normalization == "valid":
        count = max(sum(int(v) != int(ignore_label) for v in lab.reshape(-1)), 1)
    else:
        count = 1
    spatial = o.shape[2] if multi_output and normalization != "valid" else 1
    g = (g * grad_scale / count / spatial).reshape(out.shape)
    return g * ograd if out_grad else g


def labels(n, k, shape=None):
    return lambda rng: rng.integers(0, k, shape or (n,)).astype(f64)


def probabilities(shape):
    return lambda rng: softmax(rng.standard_normal(shape), -1)


def regression_rule(kind):
    def rule(x, label, heads, grad_scale=1.0):
        out = 1 / (1 + np.exp(-x)) if kind == "logistic" else x
        d = out - label.reshape(out.shape)
        d = np.sign(d) if kind == "mae" else d
        return [d * grad_scale / (label.size // label.shape[0]), None]
    return rule


def make_loss_rule(x, heads, grad_scale=1.0, valid_thresh=0.0, normalization="null"):
    if normalization == "valid":
        return [np.full(x.shape, grad_scale / max(1, int((x > valid_thresh).sum())))]
    return [np.full(x.shape, grad_scale / (x.shape[0] if normalization == "batch" else 1))]


def softmax_output_rule(x, label, heads, **a):
    out = ref_softmax_output(x, label, **a)
    return [ref_softmax_output_grad(out, label, heads[0], **a), None]


def _with_rule(case, rule):
    case.grad_rule = rule
    return case


def so_case(inputs, attrs=None, name=""):
    return _with_rule(Case("SoftmaxOutput", inputs, attrs=attrs or {}, ref=ref_softmax_output, name=name),
                      softmax_output_rule)


def so_backward(inputs, attrs, name):
    return Case("_backward_SoftmaxOutput", inputs, attrs=attrs, grad=(), ref=ref_softmax_output_grad, name=name)


OUT = probabilities((4, 3))

CASES = [
    so_case([(4, 3), labels(4, 3)]),
    # data of > 2 dims: softmax over (N, -1), labels data.shape[:-1]; row i takes the i-th label (MXNet)
    so_case([(2, 2, 3), labels(2, 3, (2, 2))], name="flattened"),
    so_case([(2, 3, 2), np.array([[1.0, -1.0, 4.0], [-1.0, 0.0, 2.0]])],
            {"use_ignore": True, "normalization": "valid"}, name="flattened_ignore_valid"),
    so_case([(2, 3, 2), labels(2, 3, (2, 2))], {"multi_output": True}, name="multi_output"),
    so_case([(2, 2, 3), labels(2, 3, (2, 2))], {"preserve_shape": True}, name="preserve_shape"),
    so_case([(3, 4), probabilities((3, 4))], {"grad_scale": 0.5}, name="probability_labels"),
    so_case([(4, 3), np.array([0.0, -1.0, 2.0, 1.0])],
            {"use_ignore": True, "normalization": "valid", "grad_scale": 2.0}, name="ignore_valid"),
    so_case([(4, 3), labels(4, 3)], {"normalization": "batch", "smooth_alpha": 0.1, "out_grad": True},
            name="batch_smooth_out_grad"),
    so_backward([OUT, labels(4, 3), (4, 3)], {}, "null"),
    so_backward([OUT, labels(4, 3), (4, 3)], {"normalization": "batch", "grad_scale": 3.0}, "batch"),
    so_backward([OUT, np.array([0.0, -1.0, 2.0, -1.0]), (4, 3)],
                {"use_ignore": True, "normalization": "valid"}, "ignore_valid"),
    so_backward([OUT, np.array([0.0, 5.0, 2.0, 1.0]), (4, 3)],
                {"use_ignore": True, "ignore_label": 5.0, "normalization": "valid"}, "ignore_other_label"),
    so_backward([OUT, labels(4, 3), (4, 3)], {"smooth_alpha": 0.2, "out_grad": True}, "smooth_out_grad"),
    so_backward([lambda rng: softmax(rng.standard_normal((2, 3, 2)), 1), labels(2, 3, (2, 2)), (2, 3, 2)],
                {"multi_output": True}, "multi_output_null"),
    so_backward([lambda rng: softmax(rng.standard_normal((2, 3, 2)), 1), labels(2, 3, (2, 2)), (2, 3, 2)],
                {"multi_output": True, "normalization": "batch"}, "multi_output_batch"),
    so_backward([lambda rng: softmax(rng.standard_normal((2, 3, 2)), 1), np.array([[0.0, -1.0], [2.0, 1.0]]),
                 (2, 3, 2)], {"multi_output": True, "normalization": "valid", "use_ignore": True},
                "multi_output_valid"),
    so_backward([OUT, probabilities((4, 3)), (4, 3)], {"grad_scale": 2.0, "out_grad": True}, "probabilities"),
    _with_rule(Case("LinearRegressionOutput", [(3, 2), (3, 2)], ref=lambda x, l, **a: x),
               regression_rule("linear")),
    _with_rule(Case("LinearRegressionOutput", [(4, 1), (4,)], attrs={"grad_scale": 2.0},
                    ref=lambda x, l, **a: x, name="column_label"), regression_rule("linear")),
    _with_rule(Case("LogisticRegressionOutput", [(3, 2), lambda rng: rng.integers(0, 2, (3, 2)).astype(f64)],
                    ref=lambda x, l, **a: 1 / (1 + np.exp(-x.astype(f64)))), regression_rule("logistic")),
    _with_rule(Case("MAERegressionOutput", [(3, 2), (3, 2)], attrs={"grad_scale": 0.5},
                    ref=lambda x, l, **a: x), regression_rule("mae")),
    _with_rule(Case("MakeLoss", [(3, 2)], ref=lambda x, **a: x), make_loss_rule),
    _with_rule(Case("MakeLoss", [(3, 2)], attrs={"normalization": "batch", "grad_scale": 2.0},
                    ref=lambda x, **a: x, name="batch"), make_loss_rule),
    _with_rule(Case("MakeLoss", [(3, 2)], attrs={"normalization": "valid", "valid_thresh": 0.1},
                    ref=lambda x, **a: x, name="valid"), make_loss_rule),
]
