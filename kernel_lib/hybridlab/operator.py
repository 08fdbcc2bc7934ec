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
import collections
import itertools
import time
import warnings

import numpy as np

from . import monitor_state
from .autograd.state import Scope
from .base import MXNetError
from .ndarray.ndarray import NDArray
from .ops import custom as _custom
from .ops.registry import all_ops, get_op

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators", "PythonOp", "NumpyOp",
           "NDArrayOp", "OperatorArguments", "get_operator_arguments"]


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


class _user_errors:
    """Around a CustomOp's ``forward`` / ``backward``: an exception of the user's code (an assert, a
    NumPy error) reaches the caller as an ``MXNetError`` naming the op, as MXNet reports errors of
    custom operators; the original exception is its ``__cause__``. MXNetErrors pass unchanged."""

    def __init__(self, op_type, op, method):
        self.where = f"Custom {op_type!r}: {type(op).__name__}.{method}"

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if err is None or isinstance(err, MXNetError) or not isinstance(err, Exception):
            return False
        raise MXNetError(f"{self.where} raised {type(err).__name__}: {err}") from err


def _forward(ctx, a, prop, arrays):
    args, outs, aux = _custom._names(prop)
    device = ctx.device
    shapes = _custom._custom_shape(a, [x.shape for x in arrays])
    dtypes = _custom._custom_type(a, [x.dtype for x in arrays])
    out_data = _wrap([ctx.xp.zeros(s, d) for s, d in zip(shapes, dtypes)], device)
    op = _operator(a, prop, device, arrays)
    with _python_code(a["op_type"], ctx.is_train), _user_errors(a["op_type"], op, "forward"):
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
    with _python_code(a["op_type"], ctx.is_train, "_backward_"), _user_errors(a["op_type"], op, "backward"):
        op.backward(req=["write"] * len(args), out_grad=_wrap(out_grad, device),
                    in_data=_wrap(inputs[:len(args)], device), out_data=_wrap(out_data, device),
                    in_grad=in_grad, aux=_wrap(inputs[len(args):], device))
    return tuple(g._data for g in in_grad)


_custom.runner.update(forward=_forward, backward=_backward)


# ---- MXNet 0.x Python operators (PythonOp, NumpyOp, NDArrayOp), on top of Custom --------------------
_python_op_ids = itertools.count()


class PythonOp:
    """MXNet's deprecated base of ``NumpyOp`` / ``NDArrayOp`` (use ``CustomOp``): override
    ``forward(in_data, out_data)``, ``backward(out_grad, in_data, out_data, in_grad)`` and, for other
    than one input and one output of its shape, ``list_arguments``, ``list_outputs`` and
    ``infer_shape(in_shape) -> (in_shapes, out_shapes)``; ``get_symbol(*inputs, name=...)`` makes
    the node (a ``Custom`` node here). The defaults copy the input forward and write a gradient of
    ones backward, as MXNet's do."""

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """The Symbol computing this operator on the Symbols ``args`` (``name=`` names the node)."""
        if "Custom" not in _custom.symbol_functions:
            raise MXNetError(f"{type(self).__name__}.get_symbol: the symbol layer is not loaded (import hybridlab)")
        if self.info_ is None:        # one registered op type per instance, as MXNet keeps one callback record
            self.info_ = f"_python_op_{next(_python_op_ids)}"
            register(self.info_)(type(f"{type(self).__name__}Prop", (_PythonOpProp,), {"pyop": self}))
        return _custom.symbol_functions["Custom"](*args, op_type=self.info_, **kwargs)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_


class NumpyOp(PythonOp):
    """A ``PythonOp`` whose ``forward`` / ``backward`` get NumPy arrays (write results into the
    ``out_data`` / ``in_grad`` arrays in place).

    >>> import warnings
    >>> import hybridlab as mx
    >>> class Double(mx.operator.NumpyOp):
    ...     def forward(self, in_data, out_data):
    ...         out_data[0][:] = 2 * in_data[0]
    ...     def backward(self, out_grad, in_data, out_data, in_grad):
    ...         in_grad[0][:] = 2 * out_grad[0]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     y = Double().get_symbol(mx.sym.var("x"), name="double")
    >>> y.eval(x=mx.nd.array([1.0, 2.0]))[0].asnumpy().tolist()
    [2.0, 4.0]
    """
    _numpy = True

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp", DeprecationWarning, stacklevel=2)


class NDArrayOp(PythonOp):
    """A ``PythonOp`` whose ``forward`` / ``backward`` get NDArrays (write results with ``[:] =``)."""
    _numpy = False

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp", DeprecationWarning, stacklevel=2)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)


class _PythonOpProp(CustomOpProp):
    """The ``CustomOpProp`` of one ``PythonOp`` instance (``pyop``, set on a subclass per instance)."""
    pyop = None

    def __init__(self):
        super().__init__(need_top_grad=self.pyop.need_top_grad())

    def list_arguments(self):
        return list(self.pyop.list_arguments())

    def list_outputs(self):
        return list(self.pyop.list_outputs())

    def infer_shape(self, in_shape):
        ins, outs = self.pyop.infer_shape(in_shape)
        return ins, outs, []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _PythonOpRunner(self.pyop)


class _PythonOpRunner(CustomOp):
    """Calls a ``PythonOp``'s forward/backward on NumPy arrays (``NumpyOp``) or NDArrays."""

    def __init__(self, pyop):
        super().__init__()
        self.pyop = pyop

    def _call(self, method, kwargs, written):
        if not getattr(self.pyop, "_numpy", False):
            return method(**kwargs)
        host = {k: [np.array(x.asnumpy()) for x in v] for k, v in kwargs.items()}
        method(**host)
        for dst, src in zip(kwargs[written], host[written]):
            dst[:] = src

    def forward(self, is_train, req, in_data, out_data, aux):
        self._call(self.pyop.forward, {"in_data": in_data, "out_data": out_data}, "out_data")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._call(self.pyop.backward, {"out_grad": out_grad, "in_data": in_data, "out_data": out_data,
                                        "in_grad": in_grad}, "in_grad")


# ---- operator reflection ---------------------------------------------------------------------------
OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name):
    """An op's arguments as MXNet lists them: its inputs (type ``NDArray-or-Symbol``, with ``[]`` for
    a variable number) then its attributes (type, ``required`` or the default), from the registry.

    >>> import hybridlab as mx
    >>> args = mx.operator.get_operator_arguments('Activation')
    >>> args.narg, args.names, args.types[0]
    (2, ['data', 'act_type'], 'NDArray-or-Symbol')
    """
    op = get_op(op_name)
    attrs = dict(op.attrs)
    if op.variadic:
        inputs = [(op.inputs[0] if op.inputs else "args", "NDArray-or-Symbol[]")]
        if not op.inputs:
            attrs.pop("num_args", None)     # MXNet's add_n lists only its inputs
    elif op.all_inputs is None:          # inputs named by the attributes (Custom)
        inputs = [("data", "NDArray-or-Symbol[]")]
    else:
        inputs = [(n, "NDArray-or-Symbol") for n in op.all_inputs]
    entries = inputs + [(k, spec.describe()) for k, spec in attrs.items()]
    return OperatorArguments(len(entries), [n for n, _ in entries], [t for _, t in entries])
