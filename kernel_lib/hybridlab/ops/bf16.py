"""bfloat16 computes through float32: what MXNet 1.9.1 does with oneDNN on the CPU for Convolution,
Deconvolution, Pooling and BatchNorm on bfloat16 data (float32 accumulation, the result rounded to
bfloat16). ``via_float32(compute, infer_type)`` wraps an op's compute: when an input is bfloat16
(``ml_dtypes.bfloat16``), the bfloat16 inputs are widened to float32, the compute runs (the oneDNN
or NumPy path, as for float32) and each output is rounded (to nearest even) to the dtype the op's
type inference gives it. Other calls run the compute unchanged, at the cost of one dtype test per input.

``cast(x, dtype)`` is ``Cast``'s conversion: to bfloat16 it truncates (drops the low 16 bits of the
float32 value, as MXNet 1.9.1's ``Cast`` / ``astype`` do on the CPU), where ``amp_cast`` and the
computes above round to nearest even.

Ops that NumPy computes directly on ``ml_dtypes.bfloat16`` (elementwise ufuncs, FullyConnected,
whose bfloat16 matmul accumulates in float32) need no wrapper.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> x = mx.nd.ones((1, 2, 4, 4), dtype='bfloat16')
    >>> w = mx.nd.ones((3, 2, 3, 3), dtype='bfloat16')
    >>> y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True)
    >>> y.dtype.name, float(y.asnumpy()[0, 0, 0, 0])
    ('bfloat16', 18.0)
"""
import functools

import numpy as np

from ..base import bfloat16_dtype, is_bfloat16

__all__ = ["via_float32", "cast"]

_F32 = np.dtype(np.float32)


def _widen(x):
    return x.astype(_F32) if x is not None and is_bfloat16(x.dtype) else x


def via_float32(compute, infer_type):
    """``compute`` run in float32 on calls with a bfloat16 input, its outputs cast to the dtypes
    ``infer_type(a, input dtypes)`` gives them (see the module docstring)."""
    @functools.wraps(compute)
    def bf16_compute(ctx, a, *arrays):
        if not any(x is not None and is_bfloat16(x.dtype) for x in arrays):
            return compute(ctx, a, *arrays)
        out = compute(ctx, a, *(_widen(x) for x in arrays))
        wanted = infer_type(a, [x.dtype for x in arrays if x is not None])
        if isinstance(out, tuple):
            return tuple(o if d is None or o.dtype == d else o.astype(d) for o, d in zip(out, wanted))
        d = wanted[0]
        return out if d is None or out.dtype == d else out.astype(d)
    return bf16_compute


def cast(x, dtype):
    """``x.astype(dtype)``, except that a cast to bfloat16 truncates as MXNet's ``Cast`` does.

    >>> import numpy as np
    >>> bfloat16 = bfloat16_dtype()
    >>> x = np.array([1.005859375, -1.005859375, np.nan], np.float32)
    >>> cast(x, bfloat16).astype(np.float32).tolist()[:2], x.astype(bfloat16).astype(np.float32).tolist()[:2]
    ([1.0, -1.0], [1.0078125, -1.0078125])
    """
    if not is_bfloat16(dtype) or is_bfloat16(x.dtype) or not (x.dtype.kind == "f" and isinstance(x, np.ndarray)):
        return x.astype(dtype)
    bits = np.ascontiguousarray(x, dtype=_F32).view(np.uint32)
    return (bits >> 16).astype(np.uint16).view(bfloat16_dtype())
