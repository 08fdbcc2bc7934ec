"""``SymbolBlock``: a Block made from a Symbol graph, e.g. a model exported by MXNet
(``SymbolBlock.imports('model-symbol.json', ['data'], 'model-0000.params')``) or internal outputs
of another network used as a feature extractor. It always runs as a cached op.

Example::

    >>> import hybridlab as mx
    >>> data = mx.sym.var('data')
    >>> out = mx.sym.relu(mx.sym.FullyConnected(data, num_hidden=3, name='fc'), name='act')
    >>> net = mx.gluon.SymbolBlock(out, data)
    >>> sorted(net.collect_params())
    ['fc_bias', 'fc_weight']
    >>> net.initialize()
    >>> net(mx.nd.ones((2, 5))).shape
    (2, 3)
"""
import os
import warnings

from .. import symbol
from .. import deferred as _dc
from ..ndarray.ndarray import NDArray
from ..symbol.graph import copy_graph
from ..symbol.symbol import Symbol
from .hybrid_block import HybridBlock
from .parameter import Parameter
from .utils import flatten, regroup

__all__ = ["SymbolBlock"]


def substitute(sym, mapping):
    """A copy of ``sym``'s graph where the variables named in ``mapping`` are replaced by the given
    single-output Symbols (MXNet's ``Symbol._compose``)."""
    return Symbol(copy_graph(sym._outputs, lambda v: mapping[v.name]._outputs[0] if v.name in mapping else None))


class SymbolBlock(HybridBlock):
    """A Block running the graph ``outputs`` (a Symbol or list) with ``inputs`` (variables or a list
    of them) as its arguments; every other variable becomes a Parameter (auxiliary states with
    ``grad_req='null'``), taken from ``params`` (a dict, by key or by the parameter's graph name)
    when it holds one. ``params`` may hold more than the graph uses (a whole network's parameters
    for a feature extractor), but not only unused ones."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, device=None, allow_missing=False,
                ignore_extra=False, ctx=None):
        """Load a model saved by ``HybridBlock.export`` (here or in MXNet): the symbol file, the names
        of its data inputs and optionally the ``.params`` file (``arg:``/``aux:`` keys). Files that
        do not load or do not fit each other give an ``MXNetError`` naming the file."""
        from ..base import MXNetError, MXNetValueError
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(i, dtype="float32") for i in input_names]
        else:
            inputs = [symbol.var(i) for i in input_names]
        variables = sym.list_inputs()
        missing = [i for i in input_names if i not in variables]
        if missing:
            shown = variables if len(variables) <= 20 else variables[:20] + ["..."]
            raise MXNetValueError(f"SymbolBlock.imports: input names {missing} are not variables of "
                                  f"{symbol_file!r}, whose variables are {shown}")
        try:
            ret = SymbolBlock(sym, inputs)
        except MXNetError as err:
            raise MXNetError(f"SymbolBlock.imports: {symbol_file!r}: {err}") from None
        if param_file is not None:
            # by full names, as MXNet 1.x (export's files name parameters by their graph variables)
            ret.collect_params().load(param_file, device if device is not None else ctx, allow_missing, ignore_extra,
                                      cast_dtype=True, dtype_source="saved")
        return ret

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, in_format = flatten(inputs, "input")
        out, out_format = flatten(outputs, "output")
        input_names = set()
        for s in syms:
            if len(s.get_internals().list_outputs()) != 1:
                raise AssertionError(f"Input symbols must be variable, but {s} is an output of operators")
            input_names.add(s.name)
        out = symbol.Group(out) if len(out) > 1 else out[0]
        for node in out.get_internals():      # as MXNet 1.x: no row_sparse parameters in a SymbolBlock
            if node.attr("__storage_type__") == "1":
                raise AssertionError(f"SymbolBlock doesn't support Parameter '{node.name}' because its storage "
                                     "type is 'row_sparse'.")
        arg_names, aux_names = out.list_arguments(), out.list_auxiliary_states()
        known = {s.name: s.attr("__dtype__") for s in syms if s.attr("__dtype__") is not None}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arg_types, _, aux_types = out.infer_type_partial(
                **{k: _dtype_of(v) for k, v in known.items()}) if known else out.infer_type_partial()
        given = {}
        for key, p in (params or {}).items():
            given[key] = p
            given.setdefault(p.var().name, p)
        used = [k for k, p in (params or {}).items() if k in arg_names or k in aux_names
                or p.var().name in arg_names or p.var().name in aux_names]
        if params and not used:     # a whole network's params for a part of it are fine (MXNet 1.x)
            raise ValueError(f"{set(params)} params are unused by the model.")
        for names, types, aux in ((arg_names, arg_types, False), (aux_names, aux_types, True)):
            for name, dtype in zip(names, types):
                if name in input_names:
                    continue
                p = given.get(name)
                if p is None:
                    p = Parameter(name=name, grad_req="null" if aux else "write", allow_deferred_init=True,
                                  dtype=dtype if dtype is not None else "float32")
                    p._var_name = name
                else:
                    p._allow_deferred_init = True
                    if aux:
                        p.grad_req = "null"
                self._reg_params[name] = p
                self._params[name] = p
        # MXNet 1.x keys its parameters in save_parameters files by name less the common prefix
        # ('conv0_weight' for 'resnetv10_conv0_weight'), so two instances of a model load each other's
        common = len(os.path.commonprefix(list(self._reg_params)))
        self._reg_params = {k[common:]: v for k, v in self._reg_params.items()}
        self._hybridization.set_graph(syms, out, in_format, out_format)

    def __repr__(self):
        state = self._hybridization
        if state.graph is None:
            return f"{self.__class__.__name__}(\n)"
        return f"{self.__class__.__name__}(\n{state.graph} : {len(state.inputs)} -> " \
               f"{len(state.graph.list_outputs())}\n)"

    _graph_is_the_block = True       # kept when the cached op is dropped (and by hybridization.trial)

    def _clear_cached_op(self, reason="first call", detail=""):
        self._hybridization.clear(reason, detail, keep_graph=True)     # the graph is the block

    def _builds_symbolically(self):
        return True

    def infer_shape(self, *args):
        """Infer the parameters' shapes from the inputs by the graph's shape inference."""
        self._infer_attrs("infer_shape", "shape", *args)

    def __call__(self, x, *args):
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, (x,) + args)
        out = self.forward(x, *args)
        for hook in list(self._forward_hooks.values()):
            hook(self, (x,) + args, out)
        return out

    def forward(self, x, *args):
        if _dc.is_deferred_compute():
            raise RuntimeError("Calling a SymbolBlock from within HybridBlock is not yet supported in Gluon 2.")
        if isinstance(x, NDArray):
            with x.device:
                return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise AssertionError(f"HybridBlock requires the first argument to forward be either Symbol or NDArray, "
                                 f"but got {type(x)}")
        flat, in_fmt = flatten([x] + list(args), "input")
        state = self._hybridization
        if in_fmt != state.in_format:
            raise AssertionError(f"Invalid input format: expected {state.in_format}, got {in_fmt}")
        ret = substitute(state.graph, {s.name: a for s, a in zip(state.inputs, flat)})
        return regroup(list(ret), state.out_format)


def _dtype_of(flag):
    from ..base import dtype_from_flag
    try:
        return dtype_from_flag(int(flag))
    except (TypeError, ValueError):
        return flag
