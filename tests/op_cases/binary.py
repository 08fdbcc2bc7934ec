import numpy as np

from op_checker import Case

CASES = [
    Case("broadcast_add", [(2, 3), (1, 3)], ref=np.add),
    Case("broadcast_mul", [(2, 1, 3), (4, 1)], ref=np.multiply),
    Case("elemwise_add", [(2, 3), (2, 3)], ref=np.add),
    Case("elemwise_mul", [(2, 3), (2, 3)], ref=np.multiply),
    Case("_plus_scalar", [(2, 3)], attrs={"scalar": 2.5}, ref=lambda x, scalar: x + scalar),
    Case("_mul_scalar", [(2, 3)], attrs={"scalar": 0.5}, ref=lambda x, scalar: x * scalar),
    Case("_greater_scalar", [(2, 3)], attrs={"scalar": 0.1}, grad=(),
         ref=lambda x, scalar: (x > scalar).astype(x.dtype)),
    Case("_reduce_sum_like", [(2, 3, 4), (3, 1)], ref=lambda g, like: g.sum(axis=(0, 2)).reshape(3, 1)),
]
