"""MXNet 1.x's Executor: a Symbol bound to arrays (``Symbol.bind``, ``Symbol.simple_bind``,
``Symbol.eval``) and run with ``forward(is_train)`` / ``backward(out_grads)``.

It lives in the compiler because it runs the graph as a ``CachedOp``; ``attach`` (called when
``hybridlab.compiler`` loads) adds ``bind`` / ``simple_bind`` / ``eval`` to ``Symbol``, so the symbol
layer never imports the compiler.

The bound graph runs as a ``CachedOp`` (the same compiled programs as a hybridized block), with
the argument and auxiliary arrays as its inputs; training forwards record one tape node, and
``backward`` writes the argument gradients into the bound gradient arrays as ``grad_req`` says
('write', 'add' or 'null'). ``arg_dict``, ``grad_dict``, ``aux_dict`` and ``output_dict`` name
the arrays; ``reshape`` makes an executor for new input shapes that shares the arrays whose shapes
did not change (the parameters).

Example::

    >>> import hybridlab as mx
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.FullyConnected(x, num_hidden=2, no_bias=True, name='fc')
    >>> ex = y.simple_bind(mx.cpu(), x=(1, 3))
    >>> ex.arg_dict['fc_weight'][:] = 1
    >>> ex.forward(is_train=True, x=mx.nd.array([[1, 2, 3]]))[0].asnumpy().tolist()
    [[6.0, 6.0]]
    >>> ex.backward(mx.nd.ones((1, 2)))
    >>> ex.grad_dict['fc_weight'].asnumpy().tolist()
    [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
"""
import copy
import os
import warnings

import numpy as np

from .. import autograd
from ..base import MXNetError
from ..device import current_device
from ..ndarray.creation import zeros
from ..symbol.subgraph_inline import expand
from ..symbol.unknown_dims import resolve_unknown_dims
from .cached_op import CachedOp
from .executor_monitor import ExecutorMonitor, run_monitored
from .memory import plan as memory_plan
from .passes._graph import backward_nodes
from .passes.cse import eliminate_common_subexpressions

__all__ = ["Executor", "attach", "bind", "evaluate", "simple_bind"]


def _by_name(values, names, what, required=True):
    """``{name: value}`` from a list in ``names`` order or a dict; ``None`` means none given."""
    if values is None:
        values = {}
    if isinstance(values, (list, tuple)):
        if len(values) != len(names):
            raise MXNetError(f"bind: {what} expected {len(names)} arrays (for {names}), got {len(values)}")
        values = dict(zip(names, values))
    elif not isinstance(values, dict):
        raise MXNetError(f"bind: {what} expected a list or a dict of NDArrays, got {type(values).__name__}")
    values = {n: v for n, v in values.items() if n in names}    # MXNet ignores names the symbol lacks
    missing = [n for n in names if values.get(n) is None]
    if required and missing:
        raise MXNetError(f"bind: {what} expected an array for every name, missing {missing}")
    return values


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in names}
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise MXNetError(f"bind: grad_req expected {len(names)} entries (for {names}), got {len(grad_req)}")
        reqs = dict(zip(names, grad_req))
    elif isinstance(grad_req, dict):
        reqs = {n: grad_req.get(n, "null") for n in names}
    else:
        raise MXNetError(f"bind: grad_req expected a string, list or dict, got {type(grad_req).__name__}")
    for n, req in reqs.items():
        if req not in ("write", "add", "null"):
            raise MXNetError(f"bind: grad_req of {n!r} expected 'write', 'add' or 'null', got {req!r}")
    return reqs


class Executor:
    """A Symbol bound to argument, gradient and auxiliary arrays on one device (see the module
    docstring). Make one with ``Symbol.bind`` or ``Symbol.simple_bind``."""

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None, cached_op=None,
                 outputs=None):
        symbol = expand(symbol)     # _CachedOp nodes (get_symbol's hybridized calls): their graphs' ops
        self._symbol = symbol
        self._ctx = ctx or current_device()
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self.arg_dict = _by_name(args, self._arg_names, "args")
        self.aux_dict = _by_name(aux_states, self._aux_names, "aux_states")
        self._reqs = _grad_reqs(grad_req, self._arg_names)
        grads = _by_name(args_grad, self._arg_names, "args_grad", required=False)
        self.grad_dict = {}
        for name in self._arg_names:
            if self._reqs[name] == "null":
                continue
            if grads.get(name) is None:
                if args_grad is not None:   # MXNet: an argument without a gradient array gets none
                    self._reqs[name] = "null"
                    continue
                grads[name] = self.arg_dict[name].zeros_like()
            self.grad_dict[name] = grads[name]
        if self.grad_dict and args_grad is not None:   # gradient arrays asked for (bind's None: made here)
            _check_differentiable(symbol, self.grad_dict)
        self._resolved = False      # MXNet 1.x: 0 dims of creation ops (sym.zeros((0, H))) are inferred
        if cached_op is None:
            bound = {n: a.shape for n, a in {**self.arg_dict, **self.aux_dict}.items() if a is not None}
            program = resolve_unknown_dims(symbol, bound)
            self._resolved = program is not symbol
            cached_op = CachedOp(program)
        self._op = cached_op        # reshaped executors share it: one program per signature
        # read at bind, as MXNet's executor reads it (get_optimized_symbol shows its effect)
        self._eliminate_common_expr = os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1") != "0"
        # as MXNet's, the output arrays exist from bind on and each forward writes into them (a
        # reshaped executor's may be views of its parent's); ``_heads``: the last forward's results
        self.outputs = outputs if outputs is not None else self._allocate_outputs()
        self._heads = None
        self._monitor = None
        bound = list(self.arg_dict.values()) + list(self.aux_dict.values())
        self._placed = any(a.context != self._ctx for a in bound)

    def _output_specs(self):
        """``[(shape, dtype)]`` of the outputs for the bound arrays, or ``None`` where inference
        cannot tell (ops whose output shapes depend on values)."""
        known = {**self.arg_dict, **self.aux_dict}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, shapes, _ = self._symbol.infer_shape_partial(**{n: a.shape for n, a in known.items()})
            _, dtypes, _ = self._symbol.infer_type_partial(**{n: a.dtype for n, a in known.items()})
        if any(not s or 0 in s or t is None for s, t in zip(shapes, dtypes)):
            return None
        return list(zip(shapes, dtypes))

    def _allocate_outputs(self, share=()):
        """Zero-filled output arrays (views of the arrays ``share`` where they are large enough)."""
        specs = self._output_specs()
        if specs is None:
            return []
        share = list(share) + [None] * len(specs)
        return [_view_or_zeros(shape, dtype, self._ctx, old) for (shape, dtype), old in zip(specs, share)]

    # ---- the arrays, in MXNet's orders -------------------------------------------------------
    @property
    def arg_arrays(self):
        return [self.arg_dict[n] for n in self._arg_names]

    @property
    def grad_arrays(self):
        return [self.grad_dict.get(n) for n in self._arg_names]

    @property
    def aux_arrays(self):
        return [self.aux_dict[n] for n in self._aux_names]

    @property
    def output_dict(self):
        return dict(zip(self._symbol.list_outputs(), self.outputs))

    # ---- running ------------------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Run the graph (``is_train``: training mode; recorded for ``backward`` whenever some
        argument has a gradient array, as MXNet's executor runs backward after either mode) after copying
        ``kwargs`` (NDArrays or NumPy arrays, by argument name) into the bound arguments; returns
        ``self.outputs``."""
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise MXNetError(f"forward: unknown argument {name!r}; expected one of {self._arg_names}")
            target = self.arg_dict[name]
            value_shape = tuple(np.shape(value))
            if value_shape != target.shape:
                raise MXNetError(f"forward: argument {name!r} expected shape {target.shape}, got {value_shape} "
                                 "(use Executor.reshape for new shapes)")
            target[:] = value
        by_name = {**self.arg_dict, **self.aux_dict}
        inputs = [by_name[n] for n in self._op.input_names]
        if self.grad_dict:       # as MXNet, backward() may follow an inference forward too
            marked = [n for n in self._arg_names if n in self.grad_dict]
            autograd.mark_variables([self.arg_dict[n] for n in marked], [self.grad_dict[n] for n in marked],
                                    [self._reqs[n] for n in marked])
            with autograd.record(train_mode=is_train):
                outs = self._run(inputs)
        else:
            with autograd.pause(train_mode=False):
                outs = self._run(inputs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        self._heads = outs
        if len(self.outputs) == len(outs) and all(o.shape == r.shape and o.dtype == r.dtype
                                                  for o, r in zip(self.outputs, outs)):
            for o, r in zip(self.outputs, outs):
                o[...] = r
        else:
            self.outputs = list(outs)
        return self.outputs

    def _run(self, inputs):
        if self._placed:       # group2ctx placements: copies to the executor's device, recorded
            inputs = [x if x.context == self._ctx else x.as_in_context(self._ctx) for x in inputs]
        if self._monitor is None:
            return self._op(*inputs)
        return run_monitored(self._op, inputs, self._monitor)

    def backward(self, out_grads=None, is_train=True):
        """Write the gradients of the last training ``forward`` into ``grad_dict`` (``out_grads``:
        one head gradient per output; loss outputs such as SoftmaxOutput need none)."""
        if not self.grad_dict:
            return
        if self._heads is None:   # MXNet runs the backward pass on whatever its forward buffers hold:
            self.forward(is_train=is_train)     # here a forward fills them first
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        if out_grads is not None:
            out_grads = [self._head_grad(i, g) for i, g in enumerate(out_grads)]
        autograd.backward(self._heads, head_grads=out_grads, train_mode=is_train)

    def _head_grad(self, i, grad):
        # MXNet copies each head gradient into a buffer of its output's dtype, and never reads the head
        # gradient of an output whose op has no gradient (shape_array, argmax: any shape passes)
        if grad is None or i >= len(self._heads) or not hasattr(grad, "astype"):
            return grad
        head = self._heads[i]
        node = self._symbol.entries[i][0] if i < len(self._symbol.entries) else None
        if tuple(grad.shape) != head.shape and node is not None and node.op is not None \
                and getattr(node.op, "grad", True) is None:
            return None
        return grad.astype(head.dtype) if grad.dtype != head.dtype else grad

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` with every op output of each forward and backward (and
        the op inputs with ``monitor_all``), named as MXNet's executor does (``<node>_output``,
        ``<node>_backward_output<i>``; see ``compiler.executor_monitor``). A reshaped executor keeps it."""
        self._monitor = ExecutorMonitor(lambda name, op_name, array: callback(name, array), monitor_all)

    # ---- parameters and shapes ------------------------------------------------------------------
    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy ``arg_params`` / ``aux_params`` (name -> array) into the bound arrays."""
        for params, table, what in ((arg_params, self.arg_dict, "argument"), (aux_params or {}, self.aux_dict,
                                                                               "auxiliary state")):
            for name, value in params.items():
                if name in table:
                    table[name][:] = value
                elif not allow_extra_params:
                    raise MXNetError(f"copy_params_from: {name!r} is not an {what} of the symbol; expected one of "
                                     f"{sorted(table)} (or allow_extra_params=True)")

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """An executor for new input shapes (``name=shape``) sharing the arrays whose shapes stay
        the same, and the memory of those that shrink (its arguments and outputs are views of this
        executor's, as in MXNet). Other arguments whose shapes change need ``partial_shaping``;
        arrays that grow need ``allow_up_sizing`` (they get new memory)."""
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError(f"reshape: cannot infer every shape from {kwargs}")
        args, grads = {}, {}
        for name, shape in zip(self._arg_names, arg_shapes):
            old = self.arg_dict[name]
            if tuple(shape) == old.shape:
                args[name] = old
                grads[name] = self.grad_dict.get(name)
                continue
            if name not in kwargs and not partial_shaping:
                raise MXNetError(f"reshape: the shape of argument {name!r} changes from {old.shape} to {tuple(shape)}, "
                                 "so it cannot be shared with the old executor; expected partial_shaping=True if "
                                 "that is intended")
            if np.prod(shape) > old.size and not allow_up_sizing:
                raise MXNetError(f"reshape: argument {name!r} grows from {old.shape} to {tuple(shape)}; expected "
                                 "allow_up_sizing=True to allocate larger arrays")
            args[name] = _view_or_zeros(shape, old.dtype, old.context, old)
            grad = self.grad_dict.get(name)
            grads[name] = None if grad is None else _view_or_zeros(shape, grad.dtype, grad.context, grad)
        aux = {}
        for name, shape in zip(self._aux_names, aux_shapes):
            old = self.aux_dict[name]
            aux[name] = _view_or_zeros(shape, old.dtype, old.context, old)
        reqs = {n: (self._reqs[n] if grads.get(n) is not None else "null") for n in self._arg_names}
        new = Executor(self._symbol, self._ctx, args, {n: g for n, g in grads.items() if g is not None} or None,
                       reqs, aux, cached_op=None if self._resolved else self._op, outputs=[])
        new.outputs = new._allocate_outputs(share=self.outputs)
        new._monitor = self._monitor       # as MXNet's reshape, the monitor callback goes along
        return new

    def get_optimized_symbol(self):
        """The bound graph as MXNet's executor optimizes it: common subexpressions merged (unless
        ``MXNET_ELIMINATE_COMMON_EXPR=0`` when binding), an output repeated by the merge made a
        ``_copy``. A new Symbol; the bound one is unchanged. (The programs that run go through
        hybridlab's full pass pipeline, fusion included: ``CachedOp.pipeline`` shows it.)

        >>> import hybridlab as mx
        >>> a, b = mx.sym.var('a'), mx.sym.var('b')
        >>> ex = ((a + b) + (a + b)).simple_bind(mx.cpu(), a=(2,), b=(2,))
        >>> len(ex.get_optimized_symbol().get_internals())
        4
        """
        if not self._eliminate_common_expr:
            return copy.deepcopy(self._symbol)
        return eliminate_common_subexpressions(self._symbol, unique_outputs=True)

    def debug_str(self):
        """The bound graph in MXNet's format (``Symbol.debug_str``), then, as MXNet's executor,
        ``Total <n> MB allocated``: the memory of the graph's intermediate values for the bound
        shapes by hybridlab's planner (``compiler.memory``): the peak with each value freed after
        its last reader when no gradient is needed, every forward value (kept for the backward)
        when one is."""
        text = self._symbol.debug_str()
        nbytes = self._planned_bytes()
        return text if nbytes is None else text + f"Total {nbytes >> 20} MB allocated\n"

    def _planned_bytes(self):
        bound = {**self.arg_dict, **self.aux_dict}
        try:
            plan = memory_plan(self._symbol, {n: a.shape for n, a in bound.items()},
                               {n: a.dtype for n, a in bound.items()})
        except MXNetError:        # shapes that depend on values: no plan to report
            return None
        variables = [n for n in self._symbol._nodes() if n.is_variable]
        active, _ = backward_nodes(self._symbol._outputs, variables, [n.name in self.grad_dict for n in variables])
        return plan.unplanned_bytes if active else plan.imperative_bytes

    def __repr__(self):
        return f"<Executor {self._symbol.name or self._symbol.list_outputs()} @{self._ctx}>"


def _check_differentiable(symbol, grad_names):
    """Refuse, as MXNet's bind does, a graph whose backward for the arguments ``grad_names`` would
    go through an op without a gradient."""
    variables = [n for n in symbol._nodes() if n.is_variable]
    _, bad = backward_nodes(symbol._outputs, variables, [n.name in grad_names for n in variables])
    if bad:
        node = bad[0]
        reason = f" ({node.op.no_grad_reason})" if node.op.no_grad_reason else ""
        raise MXNetError(f"Operator {node.op.name} is non-differentiable because it didn't register FGradient "
                         f"attribute{reason}: node '{node.name}' is on the gradient path of "
                         f"{sorted(n for n in grad_names)}; expected grad_req='null' for the arguments "
                         f"feeding it, or mx.sym.BlockGrad after it")


def _view_or_zeros(shape, dtype, ctx, old):
    """An array of ``shape``: the first elements of ``old`` (memory shared, as MXNet's executor
    reshape reuses an array that shrinks) when it is large enough and of ``dtype``, else zeros."""
    shape = tuple(shape)
    if old is not None and old.shape == shape and old.dtype == dtype:
        return old
    size = int(np.prod(shape))
    if old is not None and old.dtype == dtype and 0 < size <= old.size:
        return old.reshape((-1,))[0:size].reshape(shape)
    return zeros(shape, ctx=ctx, dtype=dtype)


def bind(symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None, shared_exec=None):
    """``Symbol.bind``: an ``Executor`` running ``symbol`` on the given arrays (``args`` /
    ``args_grad`` / ``aux_states``: lists in ``list_arguments`` / ``list_auxiliary_states`` order or
    dicts by name; ``grad_req``: 'write', 'add', 'null', or one per argument).

    >>> import hybridlab as mx
    >>> a, b = mx.sym.var('a'), mx.sym.var('b')
    >>> ex = (a * b).bind(mx.cpu(), {'a': mx.nd.array([2]), 'b': mx.nd.array([3])})
    >>> ex.forward()[0].asnumpy().tolist()
    [6.0]
    """
    return Executor(symbol, ctx, args, args_grad, grad_req, aux_states)


def simple_bind(symbol, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
    """``Symbol.simple_bind``: infer every shape from the input shapes in ``kwargs`` (and dtypes
    from ``type_dict``, float32 otherwise) and bind zero-filled arrays (gradients too, except for
    ``grad_req='null'`` arguments). As MXNet's: a variable of ``ctx_group`` g lives on
    ``group2ctx[g]``; ``shared_arg_names`` found in ``shared_exec`` (same shape and dtype) reuse its
    arrays and gradients, the other arguments reuse the memory of ``shared_buffer[name]`` (a dict,
    updated with what is allocated); auxiliary states of ``shared_exec`` are shared.

    >>> import hybridlab as mx
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc')
    >>> ex = net.simple_bind(mx.cpu(), data=(2, 4))
    >>> {k: v.shape for k, v in ex.arg_dict.items()}
    {'data': (2, 4), 'fc_weight': (3, 4), 'fc_bias': (3,)}
    """
    kwargs = {k: v for k, v in kwargs.items() if isinstance(v, tuple)}   # MXNet ignores other keywords
    arg_shapes, _, aux_shapes = symbol.infer_shape(**kwargs)
    if arg_shapes is None:
        raise MXNetError(f"simple_bind: cannot infer the shapes of every argument from {kwargs}; expected the "
                         "shapes of all inputs")
    arg_names, aux_names = symbol.list_arguments(), symbol.list_auxiliary_states()
    if type_dict is None:    # as MXNet: float32 for every argument without a __dtype__ attribute
        attrs = symbol.attr_dict()
        type_dict = {n: np.float32 for n in arg_names if "__dtype__" not in attrs.get(n, {})}
    arg_types, _, aux_types = symbol.infer_type_partial(**type_dict)
    arg_types = [t or np.float32 for t in arg_types]
    aux_types = [t or np.float32 for t in aux_types]
    ctx = ctx or current_device()
    attrs = symbol.attr_dict()
    reqs = _grad_reqs(grad_req, arg_names)
    shared = set(shared_arg_names or ())

    def device(name):     # MXNet's group2ctx: a variable of ctx_group g lives on group2ctx[g]
        group = attrs.get(name, {}).get("__ctx_group__")
        return (group2ctx or {}).get(group, ctx) if group is not None else ctx

    def stype(name):
        code = (stype_dict or {}).get(name) or attrs.get(name, {}).get("__storage_type__")
        return _STYPES.get(str(code), code) if code is not None else None

    def fits(arr, shape, dtype):
        return arr is not None and arr.shape == tuple(shape) and arr.dtype == dtype

    args, grads, aux = {}, {}, {}
    for n, s, t in zip(arg_names, arg_shapes, arg_types):
        if shared_exec is not None and n in shared and fits(shared_exec.arg_dict.get(n), s, t):
            args[n] = shared_exec.arg_dict[n]          # a parameter of the shared executor
            if reqs[n] != "null" and fits(shared_exec.grad_dict.get(n), s, t):
                grads[n] = shared_exec.grad_dict[n]
        elif shared_buffer is not None and n not in shared and stype(n) in (None, "default"):
            old = shared_buffer.get(n)                 # an input: memory shared with other executors
            args[n] = _view_or_zeros(s, t, device(n), old if old is not None and old.dtype == t else None)
            if old is None or args[n].size > old.size:
                shared_buffer[n] = args[n]
        else:
            args[n] = zeros(s, ctx=device(n), dtype=t, stype=stype(n))
        if reqs[n] != "null" and n not in grads:
            grads[n] = zeros(s, ctx=device(n), dtype=t)
    for n, s, t in zip(aux_names, aux_shapes, aux_types):
        old = shared_exec.aux_dict.get(n) if shared_exec is not None else None
        aux[n] = old if fits(old, s, t) else zeros(s, ctx=device(n), dtype=t)
    return Executor(symbol, ctx, args, grads or None, reqs, aux)


_STYPES = {"0": "default", "1": "row_sparse", "2": "csr"}


def evaluate(symbol, ctx=None, **kwargs):
    """``Symbol.eval``: the outputs (a list of NDArrays) for the arguments given by name in ``kwargs``.

    >>> import hybridlab as mx
    >>> x = mx.sym.var('x')
    >>> (2 * x + 1).eval(x=mx.nd.array([1, 2]))[0].asnumpy().tolist()
    [3.0, 5.0]
    """
    return bind(symbol, ctx, kwargs).forward()


def attach(symbol_class):
    """Make ``bind``, ``simple_bind`` and ``eval`` methods of ``symbol_class`` (``Symbol``): each
    function here takes the symbol first, so it is the method as it is. MXNet 2.0 names the first
    two ``_bind`` and ``_simple_bind``; both names work.

    >>> import hybridlab as mx
    >>> mx.sym.Symbol.bind is bind
    True
    """
    # ``evaluate`` keeps the builtin ``eval`` unshadowed here; MXNet's method name is ``eval``
    for name, fn in (("bind", bind), ("simple_bind", simple_bind), ("eval", evaluate), ("_bind", bind),
                     ("_simple_bind", simple_bind)):
        setattr(symbol_class, name, fn)
