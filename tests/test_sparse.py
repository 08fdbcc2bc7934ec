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


def test_sparse_retain_keeps_listed_rows_as_row_sparse_in_nd_and_sym():
    x = mx.nd.array([[1, 2], [3, 4], [5, 6]]).tostype("row_sparse")
    r = mx.nd.sparse.retain(x, mx.nd.array([0, 2]))
    assert isinstance(r, mx.nd.sparse.RowSparseNDArray)
    assert r.indices.asnumpy().tolist() == [0, 2] and r.asnumpy().tolist() == [[1, 2], [0, 0], [5, 6]]
    s = mx.sym.sparse.retain(mx.sym.var("x"), mx.sym.var("i"))
    out = s.eval(x=mx.nd.array([[1, 2], [3, 4]]), i=mx.nd.array([1]))[0]
    assert out.asnumpy().tolist() == [[0, 0], [3, 4]]
    with pytest.raises(mx.MXNetError, match="row indices in \\[0, 3\\)"):
        mx.nd.sparse.retain(x, mx.nd.array([3]))


def test_sym_sparse_dot_with_a_row_sparse_weight_binds_and_initialises_in_a_module():
    # MXNet 1.9.1: Constant/Zero/One initialise a row_sparse weight of a Module like a dense one
    x = mx.sym.var("data", stype="csr")
    w = mx.sym.var("weight", shape=(10, 2), init=mx.init.Constant(2.0), stype="row_sparse")
    mod = mx.mod.Module(mx.sym.sparse.dot(x, w), label_names=None)
    mod.bind(data_shapes=[("data", (10, 10))])
    mod.init_params()
    assert (mod.get_params()[0]["weight"].asnumpy() == 2.0).all()


def test_rand_sparse_ndarray_returns_the_array_and_its_parts_as_mxnet():
    arr, (values, rows) = mx.test_utils.rand_sparse_ndarray((6, 3), "row_sparse", rsp_indices=np.array([1, 4]))
    assert arr.stype == "row_sparse" and rows.tolist() == [1, 4] and values.shape == (2, 3)
    assert np.allclose(arr.asnumpy()[[1, 4]], values) and not arr.asnumpy()[[0, 2, 3, 5]].any()
    csr, (indptr, indices, data) = mx.test_utils.rand_sparse_ndarray((4, 8), "csr", density=15 / 32,
                                                                     distribution="powerlaw")
    counts = np.diff(indptr.asnumpy())
    assert csr.stype == "csr" and counts.tolist() == [1, 2, 4, 8] and len(data.asnumpy()) == 15
    with pytest.raises(mx.MXNetError, match="cannot be reached by a powerlaw"):
        mx.test_utils.rand_sparse_ndarray((2, 2), "csr", density=1.0, distribution="powerlaw")


@pytest.mark.parametrize("w_stype", ["default", "row_sparse"])
def test_compare_optimizer_takes_sparse_weights_and_gradients(w_stype):
    # Ftrl updates a row_sparse gradient's rows only (MXNet's sparse ftrl_update is always lazy):
    # the dense reference that skips zero rows agrees
    class RowwiseFtrl(mx.optimizer.Ftrl):
        def update(self, index, weight, grad, state):
            rows = np.flatnonzero(grad.asnumpy().reshape(grad.shape[0], -1).any(axis=1))
            mask = np.zeros(weight.shape, bool)
            mask[rows] = True
            before = [weight.asnumpy()] + [s.asnumpy() for s in state]
            super().update(index, weight, grad, state)
            for arr, old in zip([weight] + list(state), before):
                arr[:] = mx.nd.array(np.where(mask, arr.asnumpy(), old))

    mx.test_utils.compare_optimizer(RowwiseFtrl(), mx.optimizer.Ftrl(), (5, 3), np.float32,
                                    w_stype=w_stype, g_stype="row_sparse")


def test_ndarray_iter_gives_csr_batches_and_refuses_padding_them():
    dense = np.eye(6, 4, dtype=np.float32)
    csr = mx.nd.array(dense).tostype("csr")
    with pytest.raises(NotImplementedError, match="last_batch_handle='discard'"):
        mx.io.NDArrayIter({"data": csr}, dense, 4)
    it = mx.io.NDArrayIter({"csr_data": csr, "dns_data": dense}, None, 4, last_batch_handle="discard")
    batches = list(it)
    assert len(batches) == 1 and not batches[0].label
    first, second = batches[0].data
    assert first.stype == "csr" and second.stype == "default"
    assert first.asnumpy().tolist() == dense[:4].tolist()
    scipy_batches = list(mx.io.NDArrayIter(sps.csr_matrix(dense), [], 3, last_batch_handle="discard"))
    assert [b.data[0].stype for b in scipy_batches] == ["csr", "csr"]


def test_split_and_load_keeps_csr_parts_on_their_devices():
    csr = mx.nd.array([[0, 1], [2, 0], [0, 0], [3, 3]]).tostype("csr")
    parts = mx.gluon.utils.split_and_load(csr, [mx.cpu(0), mx.cpu(1)])
    assert [type(p).__name__ for p in parts] == ["CSRNDArray", "CSRNDArray"]
    assert parts[1].context == mx.cpu(1) and parts[1].indices.asnumpy().tolist() == [0, 1]


def test_symbol_block_refuses_a_row_sparse_parameter_as_mxnet_1x():
    w = mx.sym.var("weight", stype="row_sparse")
    out = mx.sym.broadcast_add(mx.sym.dot(mx.sym.var("data"), w), mx.sym.var("bias"))
    with pytest.raises(AssertionError, match="Parameter 'weight' because its storage type is 'row_sparse'"):
        mx.gluon.SymbolBlock(out, mx.sym.var("data"))
