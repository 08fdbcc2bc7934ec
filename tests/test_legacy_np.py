"""MXNet 1.x code under ``npx.set_np()``: ``hybrid_forward(self, F, x)`` calling ``F.np`` / ``F.npx``
runs imperatively (F = mx.nd, whose ``np``/``npx`` are mx.np/mx.npx), hybridizes to the same
values, exports, and the export loads (in hybridlab and in real MXNet 1.9.1); ``mx.sym.np`` builds
the same ops on Symbols."""
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.gluon.export_check import check_export


class _Legacy(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3)

    def hybrid_forward(self, F, x):
        h = F.np.tanh(self.dense(x))
        return F.np.concatenate([h, F.npx.relu(x).sum(axis=1, keepdims=True)], axis=1) * 2


@pytest.fixture
def np_mode():
    mx.npx.set_np()
    yield
    mx.npx.reset_np()


def test_legacy_f_np_hybridizes_to_the_imperative_values_and_exports(tmp_path, np_mode):
    net = _Legacy()
    net.initialize()
    x = mx.np.array(np.random.RandomState(0).randn(2, 4).astype(np.float32))
    imperative = net(x).asnumpy()
    net.hybridize()
    hybridized = net(x)
    assert hybridized.shape == (2, 4) and isinstance(hybridized, mx.np.ndarray)
    np.testing.assert_allclose(hybridized.asnumpy(), imperative, rtol=1e-6)
    net.export(str(tmp_path / "legacy"))
    mx.npx.reset_np()
    loaded = mx.gluon.SymbolBlock.imports(str(tmp_path / "legacy-symbol.json"), ["data"],
                                          str(tmp_path / "legacy-0000.params"))
    np.testing.assert_allclose(loaded(mx.nd.array(x.asnumpy())).asnumpy(), imperative, rtol=1e-6)


@pytest.mark.skipif(not os.environ.get("HYBRIDLAB_MXNET_PYTHON"),
                    reason="real MXNet 1.9.1 is not configured (make test creates .venv-mxnet)")
def test_real_mxnet_loads_the_legacy_np_export(np_mode):
    net = _Legacy()
    net.initialize()
    report = check_export(net, mx.np.ones((2, 4)), mxnet_python=os.environ["HYBRIDLAB_MXNET_PYTHON"])
    assert report.mxnet_checked and report.ok, str(report)


def test_sym_np_and_nd_np_name_mxnets_modules():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.npx.relu(mx.sym.np.add(a, b))
    ex = s.bind(mx.cpu(), {"a": mx.nd.array([1.0, -3.0]), "b": mx.nd.array([1.0, 1.0])})
    assert ex.forward()[0].asnumpy().tolist() == [2.0, 0.0]
    assert mx.nd.np is mx.np and mx.nd.npx is mx.npx
    import hybridlab.ndarray.numpy as nd_np
    import hybridlab.symbol.numpy as sym_np
    assert nd_np is mx.np and sym_np is mx.sym.np
