"""``mx.operator``: operators written in Python, as in MXNet 1.x (``CustomOp``, ``CustomOpProp``,
``register``), run by ``mx.nd.Custom`` / ``mx.sym.Custom`` (the registry's ``Custom`` op,
``ops/custom.py``). They work imperatively with autograd, inside hybridized blocks and in ``Module``,
and a graph shows them as their own ``Custom`` node.

What MXNet does, and this does too: the property is built with its keywords as strings; one
operator object (``create_operator``) serves a node's forward and its backward; ``forward`` and
``backward`` get NDArrays and write results with ``self.assign(dst, req, src)``; the calls inside
them are neither recorded by autograd nor traced. Storage types other than dense are not supported
(``infer_storage_type`` is not called).

Example::

    >>> import hybridlab as mx
    >>> class Square(mx.operator.CustomOp):
    ...     def forward(self, is_train, req, in_data, out_data, aux):
    ...         self.assign(out_data[0], req[0], in_data[0] * in_data[0])
    ...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
    ...         self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])
    >>> @mx.operator.register("doc_square")
    ... class SquareProp(mx.operator.CustomOpProp):
    ...     def create_operator(self, ctx, shapes, dtypes):
    ...         return Square()
    >>> x = mx.nd.array([1.0, 2.0, 3.0])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.Custom(x, op_type="doc_square")
    >>> y.backward()
    >>> y.asnumpy().tolist(), x.grad.asnumpy().tolist()
    ([1.0, 4.0, 9.0], [2.0, 4.0, 6.0])
"""
import time

from . import monitor_state
from .autograd.state import Scope
from .base import MXNetError
from .ndarray.ndarray import NDArray
from .ops import custom as _custom
from .ops.registry import all_ops

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators"]


class CustomOp:
    """Base class of a Python operator's computation: override ``forward`` and ``backward``."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute ``out_data`` from ``in_data`` (lists of NDArrays); ``req[i]`` says how to write
        output ``i`` ("write", "add", "inplace" or "null"): use ``self.assign``."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute ``in_grad`` from ``out_grad`` (and the forward's data); write with ``self.assign``."""
        raise NotImplementedError(f"{type(self).__name__}.backward is not implemented")

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` as ``req`` asks: "write"/"inplace" copy, "add" adds, "null" skips.

        >>> import hybridlab as mx
        >>> dst = mx.nd.ones((2,))
        >>> mx.operator.CustomOp().assign(dst, "add", mx.nd.array([1.0, 2.0]))
        >>> dst.asnumpy().tolist()
        [2.0, 3.0]
        """
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = dst + src
        else:
            raise MXNetError(f"CustomOp.assign: req expected 'write', 'inplace', 'add' or 'null', got {req!r}")


class CustomOpProp:
    """Base class of a Python operator's description: its argument, output and auxiliary-state
    names, shape and type inference, and ``create_operator``. The defaults describe one input
    ``data`` and one output ``output`` of the same shape and type.

    ``need_top_grad=False`` says the backward does not read the output gradient (loss layers).
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """``(argument shapes, output shapes, aux shapes)`` from the argument shapes."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """``(argument types, output types, aux types)`` from the argument types."""
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """What the backward reads (MXNet uses it to free memory early; every array is kept here)."""
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The ``CustomOp`` that computes the op for these input shapes and types."""
        return CustomOp()


def register(reg_name):
    """Class decorator: register a ``CustomOpProp`` subclass as the op type ``reg_name`` of
    ``Custom`` (a later registration under the same name replaces it, as in a notebook re-run)."""
    if not isinstance(reg_name, str) or not reg_name:
        raise MXNetError(f"mx.operator.register: expected a non-empty op name, got {reg_name!r}")

    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise MXNetError(f"mx.operator.register({reg_name!r}): expected a CustomOpProp subclass, "
                             f"got {prop_cls!r}")
        _custom.PROPS[reg_name] = prop_cls
        for key in [k for k in _custom._instances if k[0] == reg_name]:
            del _custom._instances[key]
        for key in [k for k in _operators if k[0] == reg_name]:
            del _operators[key]
        return prop_cls
    return do_register


def get_all_registered_operators():
    """The names of every registered operator (MXNet's list, from the one registry)."""
    return sorted(op.name for op in all_ops())


_operators = {}      # (op_type, attributes, device, input shapes, input dtypes) -> CustomOp
_MAX_OPERATORS = 1024


def _operator(a, prop, device, arrays):
    """The operator object of one node: the same for its forward and backward (keyed by what
    ``create_operator`` is given, as MXNet creates one per node)."""
    shapes = tuple(tuple(x.shape) for x in arrays)
    dtypes = tuple(x.dtype for x in arrays)
    key = (a["op_type"], _custom._extras(a), device, shapes, dtypes)
    op = _operators.get(key)
    if op is None:
        if len(_operators) >= _MAX_OPERATORS:
            _operators.clear()
        op = prop.create_operator(device, [list(s) for s in shapes], [d.type for d in dtypes])
        if not isinstance(op, CustomOp):
            raise MXNetError(f"Custom {a['op_type']!r}: {type(prop).__name__}.create_operator expected "
                             f"to return a CustomOp, got {type(op).__name__}")
        _operators[key] = op
    return op


def _wrap(arrays, device):
    return [NDArray._wrap(x, device) for x in arrays]


class _python_code:
    """Around a CustomOp's forward or backward: its own op calls are neither recorded by autograd
    nor traced, keep the forward's mode, and reach the profiler as MXNet names them
    (``<op_type>::<op>``, the Python code itself as ``[_backward_]<op_type>::pure_python``)."""

    def __init__(self, op_type, training, prefix=""):
        self.op_type, self.training, self.prefix = op_type, training, prefix

    def __enter__(self):
        self.scope = Scope(False, self.training)
        self.scope.__enter__()
        self.custom = monitor_state.custom_op(self.op_type)
        self.custom.__enter__()
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        t1 = time.perf_counter()
        self.custom.__exit__(*exc)
        self.scope.__exit__(*exc)
        if monitor_state.switches.running:
            monitor_state.record(f"{self.prefix}{self.op_type}::pure_python", self.t0, t1, "Custom Operator")
        return False


def _forward(ctx, a, prop, arrays):
    args, outs, aux = _custom._names(prop)
    device = ctx.device
    shapes = _custom._custom_shape(a, [x.shape for x in arrays])
    dtypes = _custom._custom_type(a, [x.dtype for x in arrays])
    out_data = _wrap([ctx.xp.zeros(s, d) for s, d in zip(shapes, dtypes)], device)
    op = _operator(a, prop, device, arrays)
    with _python_code(a["op_type"], ctx.is_train):
        op.forward(is_train=ctx.is_train, req=["write"] * len(outs), in_data=_wrap(arrays[:len(args)], device),
                   out_data=out_data, aux=_wrap(arrays[len(args):], device))
    return tuple(o._data for o in out_data)


def _backward(ctx, a, prop, arrays):
    args, outs, aux = _custom._names(prop)
    device = ctx.device
    n_out, n_in = len(outs), len(args) + len(aux)
    out_grad, inputs, out_data = arrays[:n_out], arrays[n_out:n_out + n_in], arrays[n_out + n_in:]
    in_grad = _wrap([ctx.xp.zeros_like(x) for x in inputs[:len(args)]], device)
    op = _operator(a, prop, device, inputs)
    with _python_code(a["op_type"], ctx.is_train, "_backward_"):
        op.backward(req=["write"] * len(args), out_grad=_wrap(out_grad, device),
                    in_data=_wrap(inputs[:len(args)], device), out_data=_wrap(out_data, device),
                    in_grad=in_grad, aux=_wrap(inputs[len(args):], device))
    return tuple(g._data for g in in_grad)


_custom.runner.update(forward=_forward, backward=_backward)
