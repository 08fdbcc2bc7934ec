"""On a GPU a fused elementwise chain runs as ONE CuPy ElementwiseKernel (ops/fused.py), not the
step-by-step fallback, with the CPU's results; a hybridized block's fused nodes take that path."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ndarray.dispatch import op_context
from hybridlab.ops import fused
from hybridlab.ops.registry import get_op

pytestmark = pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed)")

CHAIN = json.dumps([["exp", {}, [0]], ["broadcast_add", {}, [2, 1]], ["_mul_scalar", {"scalar": "2.0"}, [3]],
                    ["tanh", {}, [4]]])
TREE = json.dumps([["sin", {}, [0]], ["square", {}, [1]], ["elemwise_mul", {}, [2, 3]],
                   ["_rminus_scalar", {"scalar": "1.5"}, [4]]])


@pytest.mark.parametrize("program, shapes", [(CHAIN, [(64, 33), (33,)]), (TREE, [(5, 7), (5, 7)])],
                         ids=["chain-broadcast", "tree"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_chain_is_one_cupy_kernel_with_cpu_results(program, shapes, dtype):
    import cupy
    op = get_op("_fused_elemwise")
    a = op.parse_attrs({"num_args": "2", "program": program})
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s).astype(dtype) for s in shapes]
    fused._kernels.clear()
    got = op.compute(op_context(mx.gpu(0), False), a, *[cupy.asarray(x) for x in xs])
    kernel = fused._kernels.get((2, program))
    assert isinstance(kernel, cupy.ElementwiseKernel), "the GPU path fell back to step-by-step ops"
    want = op.compute(op_context(mx.cpu(), False), a, *xs)
    # CUDA's float32 exp/tanh differ from NumPy's in the last bits
    np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-6 if dtype == np.float32 else 0)


def test_hybridized_block_on_gpu_runs_its_fused_nodes_as_kernels():
    import cupy

    class Chain(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return F.tanh(F.exp(x) * 2 + y) - F.sigmoid(y)

    net = Chain()
    net.hybridize()
    x = mx.nd.random.normal(shape=(128, 64), ctx=mx.gpu(0))
    y = mx.nd.random.normal(shape=(128, 64), ctx=mx.gpu(0))
    fused._kernels.clear()
    out = net(x, y)
    assert "_fused_elemwise" in net.cached_op.source()
    assert any(isinstance(k, cupy.ElementwiseKernel) for k in fused._kernels.values())
    X, Y = x.asnumpy(), y.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), np.tanh(np.exp(X) * 2 + Y) - 1 / (1 + np.exp(-Y)), rtol=1e-5,
                               atol=1e-6)
