"""Input checks for layers: a layer given an input of the wrong rank or channel count, or of a
dtype its parameters do not take, raises an error naming the layer, the expected and the got shape
or dtype, before any operator runs; a layer constructed with a value its operator refuses (a
negative unit count, a dropout rate above 1) raises at construction, naming the argument.

A layer opts in by mixing in ``InputCheck`` (before ``HybridBlock``) and implementing
``_expected_input()`` -> ``(rank or None, channel axis or None, channel count or 0 if unknown,
description)``, and for dtypes ``_typed_params()`` -> ``(op name, parameters passed after the data)``
with ``_op_attrs()``. The dtype rule is the operator's own type inference (``ops.dtype_check``).
Only arrays are checked (Symbols carry no shapes; their errors come from graph inference, which
names the node ``<layer prefix>fwd``).

Example::

    >>> import hybridlab as mx
    >>> with mx.name.NameManager():
    ...     conv = mx.gluon.nn.Conv2D(4, 3, in_channels=3)
    >>> conv.initialize()
    >>> try:
    ...     conv(mx.nd.ones((1, 5, 8, 8)))
    ... except mx.base.MXNetError as e:
    ...     print(e)
    Layer 'conv0' (Conv2D): expected input of shape (N, 3, H, W) (rank 4, 3 channels on axis 1), got shape (1, 5, 8, 8)
    >>> try:
    ...     conv(mx.nd.ones((1, 3, 8, 8), dtype='float64'))
    ... except mx.base.MXNetError as e:
    ...     what, fix = str(e).split('; ')
    ...     print(what); print(fix)
    Layer 'conv0' (Conv2D): input 1 (weight) of Convolution expected float64 (the dtype of data), got float32
    cast the input (x.astype('float32')) or the layer's parameters (net.cast('float64'))
    >>> try:
    ...     mx.gluon.nn.Dense(-5, prefix='dense0_')
    ... except mx.base.MXNetError as e:
    ...     print(e)
    Layer 'dense0' (Dense): units expected a value >= 1 (FullyConnected's num_hidden), got -5
"""
from ... import ndarray as _nd
from ...base import MXNetError
from ...ndarray.ndarray import NDArray
from ...ops.infer import InferError
from ...ops.registry import get_op
from ..parameter import Parameter

__all__ = ["InputCheck", "check_op_args", "check_count", "check_dtypes"]


def _where(layer):
    return f"Layer '{layer.name}' ({type(layer).__name__})"


def check_op_args(layer, op_name, args):
    """Refuse constructor arguments the layer's operator would refuse: ``args`` is a list of
    ``(argument name, value, op attribute)``; the error names the layer and the argument."""
    op = get_op(op_name)
    for arg, value, attr in args:
        if value is None and op.attrs[attr].optional:
            continue
        problem = op.attr_problem(attr, value)
        if problem is not None:
            raise MXNetError(f"{_where(layer)}: {arg} {problem} ({op_name}'s {attr}), got {value!r}")


def check_count(layer, arg, value):
    """Refuse a size argument (``in_units``, ``in_channels``) that is not an integer >= 0 (0: inferred
    at the first call)."""
    if isinstance(value, bool) or not hasattr(value, "__index__") or value < 0:
        raise MXNetError(f"{_where(layer)}: {arg} expected an integer >= 0 (0: inferred at the first call), "
                         f"got {value!r}")


def check_dtypes(layer, dtype, op_name, params):
    """Run ``op_name``'s type inference on the input ``dtype`` and the ``params``' dtypes; a mismatch
    raises an error naming the layer, the input, the expected and the got dtype, and the fix."""
    op = get_op(op_name)
    a = op.parse_attrs(layer._op_attrs())
    param_dtypes = [p.dtype for p in params]
    try:
        op.infer_type(a, [dtype] + param_dtypes)
    except InferError as err:
        names = op.input_names(a)
        i = err.arg
        fixes = []
        if i:       # the input in the other's dtype may fit; cast the parameters (or the state) else
            try:
                op.infer_type(a, [err.got] + param_dtypes)
                fixes.append(f"the input (x.astype('{err.got.name}'))")
            except InferError:
                pass
            if isinstance(params[i - 1], Parameter):
                fixes.append(f"the layer's parameters (net.cast('{err.expected.name}'))")
            else:
                fixes.append(f"the {names[i]} ({names[i]}.astype('{err.expected.name}'))")
        reason = getattr(err, "reason", err.why)
        raise MXNetError(f"{_where(layer)}: input {i} ({names[i]}) of {op_name} expected {err.expected.name}"
                         f"{f' ({reason})' if reason else ''}, got {err.got.name}"
                         + (f"; cast {' or '.join(fixes)}" if fixes else "")) from None


class InputCheck:
    """Mixin: validate the first input's shape at every call with an NDArray. Layers implement
    ``_expected_input()`` -> ``(rank or None, channel axis or None, channels or 0, layout text)``, or
    override ``_input_problem(shape)`` -> ``(expected text, None)`` when the shape is wrong."""

    def _expected_input(self):
        return None, None, 0, ""

    def _input_problem(self, shape):
        rank, axis, channels, layout = self._expected_input()
        bad = rank is not None and len(shape) != rank
        if not bad and axis is not None and channels:
            bad = shape[axis] != channels
        if not bad:
            return None
        want = f"rank {rank}" if rank is not None else "any rank"
        if axis is not None and channels:
            want += f", {channels} channels on axis {axis}"
        return f"{layout} ({want})"

    def _typed_params(self):
        """``(op name, the Parameters passed after the data in the op's input order)`` whose dtypes
        the op checks against the input's, or ``None`` (no dtype check)."""
        return None

    def _op_attrs(self):
        """The attributes the layer passes to its op (parsed only when the dtypes differ)."""
        return {}

    def __call__(self, x, *args):
        __tracebackhide__ = True      # IPython and pytest leave this frame out of tracebacks
        if isinstance(x, NDArray):
            expected = self._input_problem(x.shape)
            if expected is not None:
                raise MXNetError(f"{_where(self)}: expected input of shape {expected}, got shape {tuple(x.shape)}")
            typed = self._typed_params()
            # under amp.init() the op's nd function casts the inputs itself (its ``_amp_original``)
            if typed is not None and not hasattr(getattr(_nd, typed[0], None), "_amp_original"):
                dtype = x.dtype
                for p in typed[1]:
                    if p.dtype != dtype:      # may still be valid (BatchNorm's float16 data): ask the op
                        check_dtypes(self, dtype, *typed)
                        break
        return super().__call__(x, *args)
