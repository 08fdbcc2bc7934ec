"""What a Symbol cannot do, explained: MXNet's error type and text, then why (a Symbol is a node of
a graph being built: it has no values, and its shape and dtype are not known until the graph runs),
the user's source line, and the rewrite to use.

Example::

    >>> import hybridlab as mx
    >>> x = mx.sym.var('x')
    >>> try:
    ...     x.shape
    ... except AttributeError as err:
    ...     print(str(err).splitlines()[0])
    'Symbol' object has no attribute 'shape'
"""
from ..base import NotImplementedForSymbol as _BaseNotImplementedForSymbol
from .provenance import user_source

__all__ = ["NotImplementedForSymbol", "SymbolAttributeError", "symbol_attribute_error",
           "symbol_item_assignment_error",
           "symbol_bool_error", "symbol_indexing_error"]

_NO_VALUES = ("A Symbol has no values: it stands for an array of the graph being built (in a hybridized "
              "block's first call, `hybrid_forward` runs with F = mx.sym), and values exist only when the "
              "compiled graph runs.")

_SHAPE_HELP = ("Shapes are unknown until the graph runs. Write the computation without reading the "
               "shape: F.reshape special codes (0 copies a dimension, -1 infers one, -2 copies the rest, "
               "-3 merges two, -4 splits one: x.reshape((0, -1)) flattens all but the batch axis), "
               "F.reshape_like(x, y) / F.broadcast_like(x, y) to match another array, F.shape_array(x) for "
               "the shape as a tensor; sym.infer_shape(data=(...)) gives shapes outside the graph.")
_DTYPE_HELP = ("The dtype is unknown until the graph runs. Pass dtype in the block's constructor "
               "(e.g. nn.Dense(10, dtype='float16')) or call net.cast(dtype); use F.cast(x, dtype=...) / "
               "F.zeros_like(x) / F.ones_like(x) to make arrays of x's dtype; sym.infer_type(data=...) gives "
               "dtypes outside the graph.")
_DEVICE_HELP = ("A Symbol has no device: pass the device when creating or initializing the block "
                "(net.initialize(ctx=...)); arrays made inside the graph take the inputs' device.")
_VALUE_HELP = (_NO_VALUES + " To look at values, call the block before hybridize() (or hybridize(active=False)), "
               "or print them from the outputs outside the block; use F.where(cond, x, y) for choices that "
               "depend on values.")
_GRAD_HELP = ("Gradients belong to the NDArrays of the parameters and inputs: use autograd.record() around "
              "the call to the block, then out.backward() and param.grad().")

_HELP = {}
for _names, _text in (("shape ndim size", _SHAPE_HELP), ("dtype", _DTYPE_HELP),
                      ("context ctx device as_in_context as_in_ctx copyto to_device", _DEVICE_HELP),
                      ("asnumpy asscalar item tolist wait_to_read data T", _VALUE_HELP),
                      ("grad attach_grad backward detach", _GRAD_HELP)):
    for _n in _names.split():
        _HELP[_n] = _text


class NotImplementedForSymbol(_BaseNotImplementedForSymbol, NotImplementedError):
    """MXNet's error for NDArray-only operations on a Symbol (``mxnet.base.NotImplementedForSymbol``,
    so ``except mx.base.NotImplementedForSymbol`` catches it: "Function __bool__ (namely operator
    "bool") is not implemented for Symbol and only available in NDArray."), plus the rewrite and
    the user's source line."""

    def __init__(self, function, alias, *args, hint=""):
        super().__init__(function, alias, *args)
        self._extra = (" " + hint if hint else "") + _at()

    def __str__(self):
        return super().__str__() + self._extra


def _at():
    src = user_source()
    return f"\n  at {src['file']}:{src['line']}: {src['code']}" if src else ""


class SymbolAttributeError(AttributeError):
    """``'Symbol' object has no attribute 'shape'`` plus the explanation; the text is built when it
    is read, so ``hasattr(sym, 'asnumpy')`` / ``getattr(sym, name, None)`` stay cheap."""

    def __init__(self, name, methods=()):
        super().__init__(f"'Symbol' object has no attribute '{name}'")
        self.attr_name, self._methods, self._src = name, methods, user_source()

    def __str__(self):
        name = self.attr_name
        help_text = _HELP.get(name)
        if help_text is None:
            import difflib
            import importlib
            sym_ns = vars(importlib.import_module(__package__))
            close = difflib.get_close_matches(name, list(self._methods), n=3)
            hint = f" Did you mean {', '.join('.' + c + '()' for c in close)}?" if close else ""
            if callable(sym_ns.get(name)) and not name.startswith("_"):
                hint += f" The operator exists as a function: F.{name}(x, ...)."
            help_text = ("Symbol methods are the graph-building ones (list_arguments, infer_shape, tojson, "
                         "...) and the fluent operator methods." + hint)
        src = self._src
        at = f"\n  at {src['file']}:{src['line']}: {src['code']}" if src else ""
        return f"{self.args[0]}\n{help_text}{at}"


def symbol_attribute_error(name, methods=()):
    """``AttributeError: 'Symbol' object has no attribute 'shape'`` with the explanation and rewrite."""
    return SymbolAttributeError(name, methods)


def symbol_item_assignment_error():
    return TypeError("'Symbol' object does not support item assignment\n" + _NO_VALUES +
                     " Build a new array instead of writing into one: F.where(mask, value, x) replaces "
                     "elements, F.slice_axis(x, axis, begin, end) / F.slice and F.concat(a, b, dim=...) "
                     "assemble pieces." + _at())


def symbol_bool_error():
    return NotImplementedForSymbol(
        "__bool__", "bool",
        hint="The truth value of a Symbol is not known while the graph is built, so `if x:` / `while x:` "
             "cannot depend on it. Compute both branches and choose with F.where(condition, x, y) "
             "(or use control-flow operators); a Python `if` on a non-tensor value is fine.")


def symbol_indexing_error(index):
    return TypeError(f"Symbol only support integer index to fetch i-th output, got {type(index).__name__} "
                     f"{index!r}. A Symbol has no values, only outputs: to slice data inside a hybridized "
                     f"block use F.slice_axis(x, axis=..., begin=..., end=...) or F.slice(x, begin=(...), "
                     f"end=(...)), and F.take/F.pick for index arrays." + _at())
