"""Deferred compute: imperative code traced into a Symbol, with shapes but no values."""
import pytest

import hybridlab as mx

dc = mx._deferred_compute


def _trace_mlp():
    x, w, b = dc.placeholder((2, 512)), dc.placeholder((256, 0)), dc.placeholder((256,))
    dc.set_variable([x, w, b], [mx.sym.var("data"), mx.sym.var("weight"), mx.sym.var("bias")])
    return x, w, b


def test_trace_records_nodes_shapes_and_provenance():
    x, w, b = _trace_mlp()
    assert not dc.is_deferred_compute()
    with dc.context():
        assert dc.is_deferred_compute()
        h = mx.npx.relu(mx.npx.fully_connected(x, w, b, num_hidden=256))
        out = h.sum(axis=1)
        assert h.shape == (2, 256) and out.shape == (2,) and h.dtype == "float32"
    assert w.shape == (256, 512)          # the op's inference filled the unknown parameter dim
    sym = dc.get_symbol(out)
    assert sym.list_arguments() == ["data", "weight", "bias"]
    ops = [n.op_name for n in sym._nodes() if not n.is_variable]
    assert ops == ["FullyConnected", "relu", "_np_sum"]
    node = sym._outputs[0][0]
    assert node.meta["source"]["file"] == __file__ and "h.sum(axis=1)" in node.meta["source"]["code"]
    assert node.meta["shapes"] == [(2,)]


def test_reading_values_while_tracing_names_the_line():
    x, w, b = _trace_mlp()
    with dc.context():
        y = mx.npx.fully_connected(x, w, b, num_hidden=256)
        with pytest.raises(mx.MXNetError, match="while the graph is being traced at .*test_deferred.py"):
            y.asnumpy()
        with pytest.raises(mx.MXNetError, match="truth value"):
            if y.sum() > 0:
                pass
        with pytest.raises(mx.MXNetError, match="item"):
            y.sum().item()
        with pytest.raises(mx.MXNetError, match="item assignment"):
            y[0] = 1


def test_arrays_from_outside_must_be_inputs():
    x, w, b = _trace_mlp()
    outside = mx.nd.ones((2, 512))
    with dc.context():
        with pytest.raises(mx.MXNetError, match="neither a traced value, a graph input nor a parameter"):
            x + outside


def test_scalars_become_constant_nodes_and_traced_graph_runs():
    x = dc.placeholder((3,))
    dc.set_variable(x, mx.sym.var("x"))
    with dc.context():
        y = mx.np.equal(x, 2.0)
    sym = dc.get_symbol(y)
    assert [n.op_name for n in sym._nodes()] == ["null", "_full", "_npi_equal"]
    dc.clear([x, y])
    assert x._trace is None


def test_arrays_with_values_are_computed_as_well_as_recorded_as_in_mxnet():
    dc = mx._deferred_compute
    x = mx.np.arange(6.0).reshape((2, 3))
    dc.set_variable(x, mx.sym.var("x").as_np_ndarray())
    with dc.context():
        y = x * 2 + mx.np.ones((2, 3))
        inside = y.asnumpy()                 # readable inside the context too: the inputs have values
    assert (y + 0).asnumpy().tolist() == inside.tolist() == [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]]
    sym = dc.get_symbol(y, sym_cls=mx.sym.np._Symbol)
    out = sym._bind(mx.cpu(), args={"x": mx.nd.ones((2, 3))}).forward()[0]
    assert out.asnumpy().tolist() == [[3.0] * 3] * 2        # the graph, not the value, is what binds
    with pytest.raises(mx.MXNetError, match="already stands for 'x'"):
        dc.set_variable(x, mx.sym.var("other"))
