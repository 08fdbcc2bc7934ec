"""mx.nd.sparse: CSR and row-sparse arrays as MXNet builds and reads them (stored densely here: every
op runs on the values and returns a dense array, MXNet's storage fallback)."""
import numpy as np
import pytest
import scipy.sparse as sps

import hybridlab as mx


def test_csr_from_components_scipy_and_dense_agree():
    dense = np.array([[0, 1.5, 0], [2, 0, 3]], dtype=np.float32)
    from_parts = mx.nd.sparse.csr_matrix(([1.5, 2, 3], [1, 0, 2], [0, 1, 3]), shape=(2, 3))
    from_scipy = mx.nd.sparse.csr_matrix(sps.csr_matrix(dense))
    from_dense = mx.nd.array(dense).tostype("csr")
    for a in (from_parts, from_scipy, from_dense):
        assert isinstance(a, mx.nd.sparse.CSRNDArray) and a.stype == "csr" and a.dtype == np.float32
        assert a.asnumpy().tolist() == dense.tolist()
        assert a.data.asnumpy().tolist() == [1.5, 2, 3] and a.indices.asnumpy().tolist() == [1, 0, 2]
        assert a.indptr.asnumpy().tolist() == [0, 1, 3]
    assert (from_parts.asscipy() != sps.csr_matrix(dense)).nnz == 0
    assert from_parts.tostype("default").stype == "default"
    with pytest.raises(mx.MXNetError, match="column indices expected in \\[0, 3\\)"):
        mx.nd.sparse.csr_matrix(([1.0], [5], [0, 1, 1]), shape=(2, 3))
    with pytest.raises(mx.MXNetError, match="expected a 2-d array"):
        mx.nd.ones((2, 2, 2)).tostype("csr")


def test_row_sparse_rows_retain_and_ops_fall_back_to_dense():
    r = mx.nd.sparse.row_sparse_array(([[1.0, 2.0], [3.0, 4.0]], [0, 2]), shape=(4, 2))
    assert r.stype == "row_sparse" and r.indices.asnumpy().tolist() == [0, 2]
    assert r.asnumpy().tolist() == [[1, 2], [0, 0], [3, 4], [0, 0]]
    assert r.retain(mx.nd.array([2])).asnumpy().tolist() == [[0, 0], [0, 0], [3, 4], [0, 0]]
    doubled = mx.nd.sparse.elemwise_mul(r, mx.nd.ones((4, 2)) * 2)
    assert doubled.stype == "default" and doubled.asnumpy()[2].tolist() == [6.0, 8.0]
    assert mx.nd.sparse.zeros("row_sparse", (3, 2)).indices.shape == (0,)
    x = mx.nd.array([[1.0, 0.0], [0.0, 2.0]]).tostype("csr")
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [[2.0, 0.0], [0.0, 4.0]]


def _two_sgd_steps_on_row_1(emb):
    emb.initialize(mx.init.One())
    trainer = mx.gluon.Trainer(emb.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.5})
    for _ in range(2):
        with mx.autograd.record():
            y = emb(mx.nd.array([1])).sum()
        y.backward()
        trainer.step(1)
    return emb.weight.data().asnumpy()


def test_a_row_sparse_gradient_updates_only_its_rows_lazily_as_in_mxnet():
    emb = mx.gluon.nn.Embedding(4, 2, sparse_grad=True)
    w = _two_sgd_steps_on_row_1(emb)
    grad = emb.weight.grad()
    assert grad.stype == "row_sparse" and grad.indices.asnumpy().tolist() == [1]
    assert w[[0, 2, 3]].tolist() == [[1.0, 1.0]] * 3       # no gradient: not even weight decay touched them
    assert (w[1] < 1).all()
    dense = _two_sgd_steps_on_row_1(mx.gluon.nn.Embedding(4, 2))
    np.testing.assert_allclose(dense[1], w[1], rtol=1e-6)   # the same rule on its rows
    assert (dense[0] < 1).all()                             # dense: decay reaches every row
