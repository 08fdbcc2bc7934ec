"""Op-checker cases for ops/cross_entropy_svm.py: softmax_cross_entropy (a derivative, checked by
finite differences) and SVMOutput, whose backward is a rule (``grad_rule``, written with loops)
like the other loss layers; ``_backward_SVMOutput`` (the rule as an op) against the same loops."""
import numpy as np

from op_checker import Case

f64 = np.float64


def _sce_ref(data, label):
    x = data.astype(f64)
    logp = x - x.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    total = sum(-max(logp[i, int(c)], np.log(1e-8)) for i, c in enumerate(label) if 0 <= int(c) < x.shape[1])
    return np.array([total])


def _svm_rule_loops(out, label, margin=1.0, regularization_coefficient=1.0, use_linear=False):
    """MXNet's SVMOutput gradient, one element at a time."""
    k = out.shape[-1]
    o = out.reshape(-1, k).astype(f64)
    lab = label.reshape(-1)
    g = np.zeros_like(o)
    reg = regularization_coefficient
    for i in range(o.shape[0]):
        for j in range(k):
            x = o[i, j]
            if j == int(lab[i]):
                if margin > x:
                    g[i, j] = -reg if use_linear else -2 * reg * (margin - x)
            elif margin > -x:
                g[i, j] = reg if use_linear else 2 * reg * (margin + x)
    return g.reshape(out.shape)


def _svm_rule(data, label, heads, **attrs):
    return [_svm_rule_loops(data, label, **attrs), None]


def svm_case(inputs, attrs=None, name=""):
    case = Case("SVMOutput", inputs, attrs=attrs or {}, ref=lambda x, label, **a: x, name=name)
    case.grad_rule = _svm_rule
    return case


def labels(k, shape):
    return lambda rng: rng.integers(0, k, shape).astype(f64)


CASES = [
    Case("softmax_cross_entropy", [(3, 4), labels(4, (3,))], grad=(0,), ref=_sce_ref),
    Case("softmax_cross_entropy", [(2, 3), np.array([1.7, 0.2])], grad=(0,), ref=_sce_ref, name="truncated_labels"),
    svm_case([(4, 3), labels(3, (4,))]),
    svm_case([(4, 3), labels(3, (4,))], {"margin": 0.5, "regularization_coefficient": 2.0, "use_linear": True},
             name="linear_margin_reg"),
    svm_case([(2, 3, 4), labels(4, (2, 3))], {"margin": 1.5}, name="three_dims"),
    svm_case([(3, 3), np.array([5.0, -1.0, 1.7])], name="labels_out_of_range_truncated"),
    Case("_backward_SVMOutput", [(4, 3), labels(3, (4,))], grad=(), ref=_svm_rule_loops),
    Case("_backward_SVMOutput", [(2, 2, 3), labels(3, (2, 2))],
         attrs={"margin": 0.3, "regularization_coefficient": 0.5, "use_linear": True}, grad=(),
         ref=_svm_rule_loops, name="linear"),
]
