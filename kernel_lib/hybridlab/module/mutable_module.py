"""``MutableModule``: a ``Module`` for inputs whose shapes change between batches (the module of
MXNet's detection examples). It binds at ``max_data_shapes`` when given (the largest inputs, so the
parameters' shapes are known up front), then every batch runs at its own shapes: the executor is
reshaped, sharing the parameters, and the cached op compiles one program per input signature and
reuses it when a shape comes back. ``fixed_param_prefix`` freezes the parameters whose names
start with one of the prefixes.

Example::

    >>> import hybridlab as mx
    >>> net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2), name='softmax')
    >>> mod = mx.mod.MutableModule(net, max_data_shapes=[('data', (8, 3))])
    >>> mod.bind([('data', (2, 3))], [('softmax_label', (2,))])
    >>> mod.init_params()
    >>> for n in (2, 5, 2):
    ...     mod.forward(mx.io.DataBatch([mx.nd.ones((n, 3))], [mx.nd.zeros(n)]), is_train=False)
    >>> mod.get_outputs()[0].shape, mod.compiled_signatures
    ((2, 2), 2)
"""
from .module import Module

__all__ = ["MutableModule"]


class MutableModule(Module):
    """A Module whose batches may change shape (see the module docstring)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=None, context=None,
                 max_data_shapes=None, max_label_shapes=None, fixed_param_prefix=None, **kwargs):
        fixed = [n for n in symbol.list_arguments() for p in (fixed_param_prefix or []) if n.startswith(p)]
        kwargs.setdefault("fixed_param_names", fixed)
        if logger is not None:
            kwargs["logger"] = logger
        super().__init__(symbol, data_names, label_names, context=context, **kwargs)
        self._max_data_shapes = max_data_shapes
        self._max_label_shapes = max_label_shapes

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind at the largest shapes (``max_data_shapes`` where given), then at ``data_shapes``."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        largest = dict(self._max_data_shapes or [])
        # without max_label_shapes the labels' largest shapes are inferred from the data's
        labels = self._max_label_shapes if self._max_data_shapes else label_shapes
        super().bind([(d[0], largest.get(d[0], d[1])) for d in data_shapes], labels, for_training,
                     inputs_need_grad, force_rebind, shared_module, grad_req)
        self.reshape(data_shapes, label_shapes)

    @property
    def compiled_signatures(self):
        """How many input signatures the executor's cached op has compiled programs for."""
        return len(self._exec._op.signatures)
