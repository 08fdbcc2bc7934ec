"""mx.random.seed takes any int, as MXNet 1.9.1 (which passes it to C as a 32-bit int): negative and
large seeds work, seeds equal modulo 2**32 draw the same numbers; a float is a ValueError."""
import numpy as np
import pytest

import hybridlab as mx


@pytest.mark.parametrize("seed, same_as", [(-5, 2**32 - 5), (-(1 << 31), 1 << 31), (1 << 40, 0)])
def test_seeds_equal_modulo_2_32_draw_the_same(seed, same_as):
    mx.random.seed(seed)
    a = mx.random.uniform(shape=(4,)).asnumpy()
    mx.random.seed(same_as)
    b = mx.random.uniform(shape=(4,)).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_negative_seed_reproduces_draws():
    # MXNet's test_random_seed draws seeds from [-2**31, 2**31)
    mx.random.seed(-123456789)
    v1 = [mx.random.uniform(shape=(5, 5)).asnumpy() for _ in range(3)]
    mx.random.seed(-123456789)
    v2 = [mx.random.uniform(shape=(5, 5)).asnumpy() for _ in range(3)]
    assert all((a == b).all() for a, b in zip(v1, v2))


def test_float_seed_is_rejected():
    with pytest.raises(ValueError, match="seed_state must be int, got float 1.5"):
        mx.random.seed(1.5)
