"""mx.np behaviour a NumPy-style user relies on, as MXNet 1.9.1's np (values recorded from it):
numbers in give NumPy scalars out (no silent float64 arrays), reprs name non-default dtypes, reshape
follows NumPy's rules and copies, integer scalars wrap into the array's dtype."""
import numpy as onp
import pytest

import hybridlab as mx

np = mx.np


def test_numbers_in_give_numpy_scalars_out_and_keep_float32_models_float32():
    assert isinstance(np.sqrt(4.0), onp.floating) and np.add(1, 2) == 3
    x = np.ones((2, 2))
    assert (x / np.sqrt(4.0)).dtype == onp.float32 and (x * np.exp(1.0)).dtype == onp.float32


@pytest.mark.parametrize("make, text", [
    (lambda: np.array([1.0, 2.0]), "array([1., 2.])"),
    (lambda: np.array([1.0, 2.0], dtype="float64"), "array([1., 2.], dtype=float64)"),
    (lambda: np.arange(3, dtype="int64"), "array([0, 1, 2], dtype=int64)"),
    (lambda: np.array([1, 2], dtype="int32"), "array([1, 2], dtype=int32)"),
    (lambda: np.argmax(np.array([1.0, 3.0])), "array(1, dtype=int64)"),
])
def test_repr_names_every_dtype_but_float32(make, text):
    assert repr(make()) == text
    assert "shape=" not in repr(np.arange(2000.0))


def test_reshape_follows_numpy_and_copies():
    assert np.reshape(np.zeros((2, 0)), (0, 5)).shape == (0, 5)
    assert np.ones(6).reshape(2, -1).shape == (2, 3) and np.ones(6).reshape((3, 2), order="C").shape == (3, 2)
    with pytest.raises(mx.MXNetError, match=r"expected shape with 0 elements \(newshape \(2, 0\)\), got \(2, 3\)"):
        np.ones((2, 3)).reshape((2, 0))              # 0 is a size, not MXNet's "copy" code
    with pytest.raises(mx.MXNetError, match="at most one -1"):
        np.ones((2, 3, 4)).reshape(-3, 4)
    a = np.zeros(4)
    a.reshape(2, 2)[0, 0] = 9                        # mx.np's reshape is a new array
    assert a.tolist() == [0, 0, 0, 0]
    legacy = mx.nd.zeros(4)
    legacy.reshape((2, 2))[0, 0] = 9                 # mx.nd's is a view, as in MXNet 1.x
    assert legacy.asnumpy().tolist() == [9, 0, 0, 0]


def test_integer_scalars_wrap_into_the_array_dtype():
    assert (np.array([1, 2], dtype="uint8") + (-1)).tolist() == [0, 1]
    assert (np.array([1, 2], dtype="int8") + 300).tolist() == [45, 46]
