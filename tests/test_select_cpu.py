"""select(xp, cond, x, y) is np.where without a branch per element: it must return np.where's
result bit for bit (NaN payloads, signed zeros, broadcasting, dtypes) and fall back where it cannot
blend bits."""
import numpy as np
import pytest

from hybridlab.ops.select_cpu import MIN_SIZE, select


def assert_same(got, expected):
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int64, np.uint16, np.bool_])
def test_equals_np_where_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    n = 3 * MIN_SIZE
    x = (rng.standard_normal(n) * 50).astype(dtype)
    y = (rng.standard_normal(n) * 50).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[:4] = [np.nan, -0.0, np.inf, -np.inf]
        y[:4] = [-0.0, np.nan, -np.inf, 0.0]
        x[5] = np.nan
        x.view(np.dtype(f"u{x.itemsize}"))[5] |= 1        # a NaN with a payload
    cond = rng.random(n) < 0.5
    assert_same(select(np, cond, x, y), np.where(cond, x, y))


def test_broadcasting_and_scalars():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 6, 12, 12)).astype(np.float32)
    rows = rng.random((64, 1, 1, 1)) < 0.5                # one condition per sample
    assert_same(select(np, rows, x, np.float32(-1)), np.where(rows, x, np.float32(-1)))
    cond = rng.random(x.shape) < 0.5
    assert_same(select(np, cond, x, x[:1]), np.where(cond, x, x[:1]))
    assert_same(select(np, cond, np.float32(np.inf), x), np.where(cond, np.float32(np.inf), x))
    row = x[0, 0, 0]                                      # the condition alone has the full shape
    assert_same(select(np, cond, row, np.float32(2)), np.where(cond, row, np.float32(2)))


@pytest.mark.parametrize("case", ["small", "mixed dtypes", "python scalar", "int condition"])
def test_falls_back_to_np_where(case, monkeypatch):
    rng = np.random.default_rng(2)
    n = MIN_SIZE if case != "small" else MIN_SIZE // 2
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    cond = rng.random(n) < 0.5
    if case == "mixed dtypes":
        y = y.astype(np.float64)
    elif case == "python scalar":
        y = 0.0
    elif case == "int condition":
        cond = cond.astype(np.int32)
    expected = np.where(cond, x, y)
    calls = []
    monkeypatch.setattr(np, "where", lambda *a: calls.append(a) or expected)
    assert select(np, cond, x, y) is expected and len(calls) == 1
