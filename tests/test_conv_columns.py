"""The convolution kernels have two column layouts (conv._grid): columns on the output positions,
and, for stride-1 convolutions whose rows are barely wider than the output, columns on full rows
(contiguous runs, faster). The shared op checker verifies both only if its cases reach both: this
test runs every conv case's forward and records which layout each op took."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ops import conv, deconv
from hybridlab.ndarray.dispatch import invoke, op_context
from hybridlab.ops.registry import get_op
from op_cases.conv import CASES
from op_checker import make_inputs, run_op

OPS = ("Convolution", "Deconvolution", "_backward_Convolution_weight", "_Convolution_columns")


def test_every_conv_op_reaches_both_column_layouts(monkeypatch):
    taken = {op: set() for op in OPS}
    current = []
    real_grid = conv._grid

    def spy(rows, inner, stride):
        grid = real_grid(rows, inner, stride)
        taken[current[-1]].add("full rows" if grid != tuple(inner) else "output positions")
        return grid

    monkeypatch.setattr(conv, "_grid", spy)
    monkeypatch.setattr(deconv, "_grid", spy)
    rng = np.random.default_rng(0)
    for case in CASES:
        if case.op not in OPS:
            continue
        current.append(case.op)
        run_op(case, mx.cpu(), make_inputs(case, rng, np.float64))
    assert taken == {op: {"full rows", "output positions"} for op in OPS}


@pytest.mark.parametrize("rows, inner, stride, expected", [
    ((28, 28), (24, 24), (1, 1), (24, 28)),     # LeNet's first layer: 17% extra columns, long runs
    ((5, 5), (3, 3), (1, 1), (3, 3)),           # rows much wider than the output: not worth it
    ((28, 28), (12, 12), (2, 2), (12, 12)),     # strided: runs are not contiguous
])
def test_grid_choice(rows, inner, stride, expected):
    assert conv._grid(rows, inner, stride) == expected


@pytest.mark.parametrize("groups, rows", [(1, 1), (1, 3), (2, 6), (1, 9), (8, 5)])
def test_weight_gradient_products_equal_one_batched_matmul(groups, rows):
    # 2 to 7 rows per group take one matrix-vector product per row on the CPU (faster with OpenBLAS
    # than a GEMM that short); every form must give the batched product
    rng = np.random.default_rng(1)
    a = rng.standard_normal((groups, rows, 500))
    b = rng.standard_normal((groups, 7, 500))
    np.testing.assert_allclose(conv._products_over_long_axis(np, a, b), np.matmul(a, np.swapaxes(b, 1, 2)),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", [c for c in CASES if c.op == "Convolution"], ids=lambda c: c.id)
def test_saved_columns_give_the_weight_gradient(case):
    # the compiled training step may keep a convolution's columns for its weight gradient
    # (_Convolution_columns, _backward_Convolution_weight_columns): same output, same gradient, and
    # the hidden output's inferred shape is the computed one
    rng = np.random.default_rng(3)
    inputs = make_inputs(case, rng, np.float64)
    ctx = op_context(mx.cpu(), True)
    conv_op, variant = get_op("Convolution"), get_op("_Convolution_columns")
    a = variant.parse_attrs(dict(case.attrs))
    out, cols = variant.compute(ctx, a, *inputs)
    np.testing.assert_array_equal(out, conv_op.compute(ctx, conv_op.parse_attrs(dict(case.attrs)), *inputs))
    shapes, dtypes = variant.infer(a, [x.shape for x in inputs], [x.dtype for x in inputs])
    assert [tuple(s) for s in shapes] == [out.shape, cols.shape] and list(dtypes) == [out.dtype, cols.dtype]
    og = rng.standard_normal(out.shape)
    wgrad_attrs = {**dict(case.attrs), "no_bias": True}
    from_cols = get_op("_backward_Convolution_weight_columns")
    wa = from_cols.parse_attrs(wgrad_attrs)
    assert tuple(from_cols.infer(wa, [og.shape, cols.shape], [og.dtype, cols.dtype])[0][0]) == inputs[1].shape
    expected = get_op("_backward_Convolution_weight").compute(ctx, wa, og, inputs[0])
    np.testing.assert_allclose(from_cols.compute(ctx, wa, og, cols), expected, rtol=1e-12, atol=1e-12)


def test_columns_of_another_convolution_are_refused():
    op = get_op("_backward_Convolution_weight_columns")
    with pytest.raises(mx.MXNetError, match="columns"):
        invoke(op, [mx.nd.zeros((1, 2, 4, 4)), mx.nd.zeros((1, 9, 17))], {"kernel": (3, 3), "num_filter": 2})
