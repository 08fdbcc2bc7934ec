"""mx.np.einsum: NumPy's results, gradients imperative and hybridized (attention-style code), and a
clear error for the gradient of a diagonal."""
import numpy as onp
import pytest

import hybridlab as mx

np = mx.np


class Attention(mx.gluon.HybridBlock):
    def forward(self, q, k):
        scores = np.einsum("bqd,bkd->bqk", q, k) / onp.sqrt(q.shape[-1])
        return mx.npx.softmax(scores, axis=-1)


@pytest.mark.parametrize("hybridize", [False, True])
def test_attention_scores_and_gradients(hybridize):
    rng = onp.random.default_rng(0)
    Q, K = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    q, k = np.array(Q, dtype="float64"), np.array(K, dtype="float64")
    q.attach_grad()
    net = Attention()
    if hybridize:
        net.hybridize()
    with mx.autograd.record():
        p = net(q, k)
        loss = (p * p).sum()
    loss.backward()
    s = onp.einsum("bqd,bkd->bqk", Q, K) / 2.0
    want = onp.exp(s - s.max(-1, keepdims=True))
    want /= want.sum(-1, keepdims=True)
    onp.testing.assert_allclose(p.asnumpy(), want, rtol=1e-10)
    dp = 2 * want
    ds = want * (dp - (dp * want).sum(-1, keepdims=True))
    onp.testing.assert_allclose(q.grad.asnumpy(), onp.einsum("bqk,bkd->bqd", ds, K) / 2.0, rtol=1e-8)


def test_diagonal_forward_and_gradient():
    x = np.array(onp.arange(9.0).reshape(3, 3))
    assert np.einsum("ii->i", x).tolist() == [0, 4, 8] and float(np.einsum("ii", x)) == 12
    x.attach_grad()
    with mx.autograd.record():
        y = np.einsum("ii->i", x) * np.array([1.0, 2.0, 3.0])
    y.backward()
    assert x.grad.tolist() == [[1, 0, 0], [0, 2, 0], [0, 0, 3]]     # the gradient lies on the diagonal
    with mx.autograd.record():
        y = np.einsum("ii", x)                                     # trace
    y.backward()
    assert x.grad.tolist() == onp.eye(3).tolist()
    with pytest.raises(mx.MXNetError, match="expected 2 operands, got 1"):
        np.einsum("ij,jk", x)
