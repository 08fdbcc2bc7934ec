"""Dtype agreement between an operator's inputs, as MXNet 1.9's type inference demands it: the
inputs of FullyConnected, Convolution, Deconvolution, LayerNorm, GroupNorm, InstanceNorm and RNN
share one dtype (MXNet: "This layer requires uniform type", "Incompatible attr ... expected float64,
got float32"); BatchNorm keeps the parameters of float16 data in float32 and of other data in the
data's dtype. A float64 input to float32 weights is refused instead of silently promoted.

The rules are type-inference functions (``OpDef.infer_type``): graph inference (``sym.infer_type``,
``bind``, hybridized blocks, tracing) runs them, and the computes of these ops call
:func:`check_dtypes` when their arrays' dtypes differ (a comparison or two on the hot path), so
imperative calls refuse the same inputs. A mismatch raises :class:`DTypeError`, an ``InferError``
(and so an ``MXNetError``) naming the input, the expected and the got dtype.

Example::

    >>> import hybridlab as mx
    >>> x, w = mx.nd.ones((1, 3), dtype='float64'), mx.nd.ones((2, 3))
    >>> try:
    ...     mx.nd.FullyConnected(x, w, num_hidden=2, no_bias=True)
    ... except mx.MXNetError as err:
    ...     print('weight' in str(err), 'float64' in str(err), 'float32' in str(err))
    True True True
    >>> from hybridlab.ops.dtype_check import norm_param_dtype
    >>> norm_param_dtype(np.dtype('float16')), norm_param_dtype(np.dtype('float64'))
    (dtype('float32'), dtype('float64'))
"""
import numpy as np

from ..base import MXNetError, is_bfloat16
from .infer import InferError

__all__ = ["DTypeError", "uniform_dtypes", "norm_param_dtypes", "norm_param_dtype", "check_dtypes"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


class DTypeError(InferError, MXNetError):
    """Input ``arg`` (its index) has dtype ``got`` where ``expected`` was required; ``input_name``
    names it and ``why`` says where the expectation comes from.

    >>> import numpy as np
    >>> err = DTypeError("FullyConnected", 1, "weight", np.dtype('float64'), np.dtype('float32'), "the dtype of data")
    >>> err.input_name, err.expected.name, err.got.name
    ('weight', 'float64', 'float32')
    """

    def __init__(self, op_name, arg, input_name, expected, got, why):
        super().__init__(arg, expected, got, why)
        self.op_name, self.input_name, self.reason = op_name, input_name, why.split(";")[0]

    def __reduce__(self):       # its constructor takes more than InferError's fields
        return type(self), (self.op_name, self.arg, self.input_name, self.expected, self.got, self.why)


def _names(op_name, a, n):
    from .registry import get_op    # the registry is built from the op files that import this one
    names = tuple(get_op(op_name).input_names(a))
    return names + tuple(f"input {i}" for i in range(len(names), n))


def _fail(op_name, a, d, i, want, ref_text):
    names = _names(op_name, a, len(d))
    why = (f"{ref_text.format(*names)}; {op_name} takes one dtype for all its inputs: cast them with "
           f".astype('{want.name}'), or a Gluon block's parameters with block.cast('{want.name}')")
    raise DTypeError(op_name, i, names[i], want, d[i], why)


def uniform_dtypes(op_name, n_out=1, skip=None):
    """An ``infer_type`` for ``op_name``: every input (but those ``skip(a)`` returns the indices
    of) and the ``n_out`` outputs share the first known input's dtype; unknown inputs are filled
    with it, a different one raises :class:`DTypeError`.

    >>> import numpy as np
    >>> infer = uniform_dtypes("Convolution")
    >>> f32 = np.dtype('float32')
    >>> d = [f32, None, f32]
    >>> infer({}, d), d
    ([dtype('float32')], [dtype('float32'), dtype('float32'), dtype('float32')])
    """
    def infer_type(a, d):
        skipped = skip(a) if skip is not None else ()
        ref = next((i for i, t in enumerate(d) if t is not None and i not in skipped), None)
        if ref is None:
            return [None] * (n_out(a) if callable(n_out) else n_out)
        want = d[ref]
        for i, t in enumerate(d):
            if i in skipped:
                continue
            if t is None:
                d[i] = want
            elif t != want:
                _fail(op_name, a, d, i, want, "the dtype of {%d}" % ref)
        return [want] * (n_out(a) if callable(n_out) else n_out)
    infer_type.__doc__ = f"{op_name}: all inputs share one dtype (see ops.dtype_check)."
    return infer_type


def norm_param_dtype(data_dtype):
    """The parameter dtype BatchNorm takes for data of ``data_dtype``: float32 for
    float16 and bfloat16 data (MXNet keeps the statistics in the wider type), the data's own dtype otherwise."""
    return _F32 if data_dtype == _F16 or is_bfloat16(data_dtype) else data_dtype


def norm_param_dtypes(op_name):
    """An ``infer_type`` for BatchNorm: input 0 is the data, the others parameters in
    :func:`norm_param_dtype` of the data's dtype; outputs (data, stats, stats), the statistics in the
    parameters' dtype. Without a known data dtype the parameters still share one.

    >>> import numpy as np
    >>> d = [np.dtype('float16'), None, np.dtype('float32')]
    >>> norm_param_dtypes("BatchNorm")({}, d)
    [dtype('float16'), dtype('float32'), dtype('float32')]
    """
    def infer_type(a, d):
        data = d[0]
        if data is None:
            ref = next((i for i in range(1, len(d)) if d[i] is not None), None)
            want, text = (d[ref], "the dtype of {%d}" % ref) if ref is not None else (None, "")
        else:
            want = norm_param_dtype(data)
            text = (f"the parameter dtype for {data.name} {{0}} (float32)" if want != data else "the dtype of {0}")
        for i in range(1, len(d)):
            if d[i] is None:
                d[i] = want
            elif want is not None and d[i] != want:
                _fail(op_name, a, d, i, want, text)
        return [data, want, want]
    infer_type.__doc__ = (f"{op_name}: parameters in the data's dtype, float32 for float16/bfloat16 data "
                          f"(see ops.dtype_check).")
    return infer_type


def check_dtypes(infer_type, a, *arrays):
    """Run ``infer_type`` on the dtypes of ``arrays`` (``None`` entries skipped at the end: absent
    optional inputs), raising :class:`DTypeError` on a mismatch. Computes call it only when their
    arrays' dtypes differ, so agreeing inputs cost one comparison per input."""
    infer_type(a, [x.dtype for x in arrays if x is not None])
