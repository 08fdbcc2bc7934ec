"""gluon.loss: every loss against a NumPy reference (values), its autograd gradient against finite
differences of that reference, and imperative == hybridized (outputs and gradients)."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import loss as gloss

RNG = np.random.RandomState(0)
N, C = 4, 5


def _log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _softplus(x):
    return np.logaddexp(0.0, x)


def _batch_mean(loss):
    return loss.reshape(loss.shape[0], -1).mean(axis=1)


def _batch_sum(x):
    return x.reshape(x.shape[0], -1).sum(axis=1)


def _sw():
    return RNG.uniform(0.5, 1.5, (N, 1))


# name: (loss block factory, inputs after pred (NumPy), NumPy reference(pred, *others))
CASES = {
    "l2": (lambda: gloss.L2Loss(), lambda: [RNG.randn(N, C)],
           lambda p, l: _batch_mean(0.5 * (l - p) ** 2)),
    "l2_weighted": (lambda: gloss.L2Loss(weight=3.0), lambda: [RNG.randn(N, C), _sw()],
                    lambda p, l, sw: _batch_mean(1.5 * (l - p) ** 2 * sw)),
    "l1": (lambda: gloss.L1Loss(), lambda: [RNG.randn(N, C)],
           lambda p, l: _batch_mean(np.abs(l - p))),
    "softmax_ce": (lambda: gloss.SoftmaxCrossEntropyLoss(), lambda: [RNG.randint(0, C, N).astype("f")],
                   lambda p, l: -_log_softmax(p)[np.arange(N), l.astype(int)]),
    "softmax_ce_label_n1_sw": (lambda: gloss.SoftmaxCrossEntropyLoss(weight=0.5),
                               lambda: [RNG.randint(0, C, (N, 1)).astype("f"), _sw()],
                               lambda p, l, sw: -0.5 * sw[:, 0] * _log_softmax(p)[np.arange(N), l[:, 0].astype(int)]),
    "softmax_ce_dense": (lambda: gloss.SoftmaxCrossEntropyLoss(sparse_label=False),
                         lambda: [np.exp(_log_softmax(RNG.randn(N, C)))],
                         lambda p, l: -(l * _log_softmax(p)).sum(-1)),
    "softmax_ce_logits_axis1": (lambda: gloss.SoftmaxCrossEntropyLoss(axis=1, from_logits=True),
                                lambda: [RNG.randint(0, C, (N, 3)).astype("f")],
                                lambda p, l: -np.take_along_axis(p, l.astype(int)[:, None, :], 1)[:, 0].mean(1)),
    "sigmoid_bce": (lambda: gloss.SigmoidBinaryCrossEntropyLoss(), lambda: [RNG.randint(0, 2, (N, C)).astype("f")],
                    lambda p, l: _batch_mean(_softplus(p) - p * l)),
    "sigmoid_bce_pos_weight": (lambda: gloss.SigmoidBCELoss(),
                               lambda: [RNG.randint(0, 2, (N, C)).astype("f"), None, RNG.uniform(1, 3, (1, C))],
                               lambda p, l, _, pw: _batch_mean(pw * l * _softplus(-p) + (1 - l) * _softplus(p))),
    "sigmoid_bce_from_sigmoid": (lambda: gloss.SigmoidBCELoss(from_sigmoid=True),
                                 lambda: [RNG.randint(0, 2, (N, C)).astype("f")],
                                 lambda p, l: _batch_mean(-(l * np.log(p + 1e-12) + (1 - l) * np.log(1 - p + 1e-12)))),
    "kldiv": (lambda: gloss.KLDivLoss(), lambda: [np.exp(_log_softmax(RNG.randn(N, C)))],
              lambda p, l: _batch_sum(l * (np.log(l + 1e-12) - p))),      # MXNet 1.9.1 sums KL
    "kldiv_logits": (lambda: gloss.KLDivLoss(from_logits=False), lambda: [np.exp(_log_softmax(RNG.randn(N, C)))],
                     lambda p, l: _batch_sum(l * (np.log(l + 1e-12) - _log_softmax(p)))),
    "huber": (lambda: gloss.HuberLoss(rho=0.7), lambda: [RNG.randn(N, C)],
              lambda p, l: _batch_mean(np.where(np.abs(l - p) > 0.7, np.abs(l - p) - 0.35,
                                                (0.5 / 0.7) * (l - p) ** 2))),
    "hinge": (lambda: gloss.HingeLoss(), lambda: [np.sign(RNG.randn(N, C))],
              lambda p, l: _batch_mean(np.maximum(0, 1 - p * l))),
    "squared_hinge": (lambda: gloss.SquaredHingeLoss(margin=2), lambda: [np.sign(RNG.randn(N, C))],
                      lambda p, l: _batch_mean(np.maximum(0, 2 - p * l) ** 2)),
    "logistic_signed": (lambda: gloss.LogisticLoss(), lambda: [np.sign(RNG.randn(N, C))],
                        lambda p, l: _batch_mean(_softplus(-p * l))),
    "logistic_binary": (lambda: gloss.LogisticLoss(label_format="binary"),
                        lambda: [RNG.randint(0, 2, (N, C)).astype("f")],
                        lambda p, l: _batch_mean(_softplus(p) - p * l)),
    "triplet": (lambda: gloss.TripletLoss(margin=0.5), lambda: [RNG.randn(N, C), RNG.randn(N, C)],
                lambda p, pos, neg: np.maximum(0, ((pos - p) ** 2 - (neg - p) ** 2).sum(1) + 0.5)),
    "poisson_nll": (lambda: gloss.PoissonNLLLoss(), lambda: [RNG.randint(0, 4, (N, C)).astype("f")],
                    lambda p, t: np.array([(np.exp(p) - t * p).mean()])),
    "poisson_nll_full": (lambda: gloss.PoissonNLLLoss(from_logits=False, compute_full=True),
                         lambda: [RNG.randint(0, 4, (N, C)).astype("f")],
                         lambda p, t: np.array([(p - t * np.log(p + 1e-8) + np.where(
                             t > 1, t * np.log(np.maximum(t, 1)) - t + 0.5 * np.log(2 * np.pi * np.maximum(t, 1)),
                             0)).mean()])),
}


def _cosine_ref(a, b, label, margin=0.2):
    cos = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)
    out = np.where(label == 1, 1 - cos, np.where(label == -1, np.maximum(0, cos - margin), 0))
    return out[:, None]


CASES["cosine_embedding"] = (lambda: gloss.CosineEmbeddingLoss(margin=0.2),
                             lambda: [RNG.randn(N, C), np.array([1, -1, 1, -1], "f")],
                             _cosine_ref)


def _pred_for(name):
    if name in ("sigmoid_bce_from_sigmoid", "poisson_nll_full"):
        return RNG.uniform(0.1, 0.9, (N, C))
    if name == "softmax_ce_logits_axis1":
        return _log_softmax(RNG.randn(N, C, 3), axis=1)
    if name == "kldiv":
        return _log_softmax(RNG.randn(N, C))
    return RNG.randn(N, C)


def _run(block, pred, others):
    x = mx.nd.array(pred)
    x.attach_grad()
    args = [None if o is None else mx.nd.array(o) for o in others]
    with mx.autograd.record():
        out = block(x, *args)
    out.backward()
    return out.asnumpy(), x.grad.asnumpy()


def _numeric_grad(ref, pred, others, eps=1e-6):
    grad = np.zeros_like(pred)
    flat = grad.reshape(-1)
    for i in range(pred.size):
        plus, minus = pred.copy().reshape(-1), pred.copy().reshape(-1)
        plus[i] += eps
        minus[i] -= eps
        flat[i] = (ref(plus.reshape(pred.shape), *others).sum() - ref(minus.reshape(pred.shape), *others).sum()) \
            / (2 * eps)
    return grad


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_numpy_and_gradients(name):
    make, others_fn, ref = CASES[name]
    pred = _pred_for(name).astype(np.float64)
    others = [None if o is None else np.asarray(o, np.float64) for o in others_fn()]
    block = make()
    out, grad = _run(block, pred.astype(np.float32), others)
    ref_others = [o for o in others]
    expected = ref(pred, *ref_others)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5, err_msg=f"{name}: values")
    np.testing.assert_allclose(grad, _numeric_grad(ref, pred, ref_others), rtol=1e-3, atol=1e-4,
                               err_msg=f"{name}: gradient vs finite differences")
    block.hybridize()
    out_h, grad_h = _run(block, pred.astype(np.float32), others)
    out_h2, grad_h2 = _run(block, pred.astype(np.float32), others)   # the cached program's second call
    for o, g in ((out_h, grad_h), (out_h2, grad_h2)):
        np.testing.assert_allclose(o, out, rtol=1e-6, atol=1e-7, err_msg=f"{name}: hybridized values")
        np.testing.assert_allclose(g, grad, rtol=1e-6, atol=1e-7, err_msg=f"{name}: hybridized gradient")


def test_loss_repr_and_bad_weight():
    assert repr(gloss.L2Loss()) == "L2Loss(batch_axis=0, w=1.0)"
    with pytest.raises(mx.MXNetError, match="expected a number"):
        gloss.L1Loss(weight=mx.nd.ones((1,)))(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    with pytest.raises(ValueError, match="label_format"):
        gloss.LogisticLoss(label_format="other")


def test_label_of_wrong_size_names_both_shapes():
    with pytest.raises(mx.MXNetError, match=r"\(3,\).*\(2, 2\)"):
        gloss.L2Loss()(mx.nd.ones((2, 2)), mx.nd.ones((3,)))


def test_loss_inside_hybridized_network_trains():
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    loss_fn = gloss.SoftmaxCrossEntropyLoss()
    loss_fn.hybridize()
    x, y = mx.nd.array(RNG.randn(8, 4)), mx.nd.array(RNG.randint(0, 3, 8))
    with mx.autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    assert loss.shape == (8,) and np.isfinite(net.weight.grad().asnumpy()).all()


@pytest.mark.parametrize("hybridize", [False, True])
def test_sdml_loss_matches_mxnet_and_hybridizes(hybridize):
    rng = np.random.RandomState(0)
    a, b = rng.randn(4, 3).astype(np.float32), rng.randn(4, 3).astype(np.float32)
    loss = mx.gluon.loss.SDMLLoss()
    if hybridize:
        loss.hybridize()
    recorded = [1.2514199, 1.3751575, 4.3180585, 4.0212564]     # MXNet 1.9.1, same inputs
    np.testing.assert_allclose(loss(mx.nd.array(a), mx.nd.array(b)).asnumpy(), recorded, rtol=1e-5)
