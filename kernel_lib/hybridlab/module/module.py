"""``Module``: MXNet 1.x's symbolic training API over one ``Executor`` (``Symbol.simple_bind``).

``Module(symbol, data_names, label_names, context)``; ``bind(data_shapes, label_shapes)`` makes the
executor (arguments that are neither data nor labels are the parameters); ``init_params`` fills them
(an initializer, or given ``arg_params``/``aux_params``); ``init_optimizer`` creates the optimizer
with ``rescale_grad = 1 / batch size`` and its updater; then ``forward`` / ``backward`` / ``update``
per batch, or ``fit`` (``BaseModule``). A batch whose shapes differ from the bound ones reshapes the
executor (sharing the parameters), so variable batch sizes and sequence lengths work; the cached op
keeps one compiled program per input signature.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    >>> net = mx.sym.SoftmaxOutput(net, name='softmax')
    >>> mod = mx.mod.Module(net)
    >>> mod.bind(data_shapes=[('data', (4, 3))], label_shapes=[('softmax_label', (4,))])
    >>> mod.init_params(mx.init.Zero())
    >>> mod.forward(mx.io.DataBatch([mx.nd.ones((4, 3))], [mx.nd.zeros(4)]), is_train=False)
    >>> mod.get_outputs()[0].asnumpy().tolist()[0]
    [0.5, 0.5]
"""
import logging
import os
import warnings

from .. import ndarray as nd
from .. import optimizer as _opt
from ..base import MXNetError
from ..device import current_device
from ..fileio import read_file
from ..initializer import InitDesc, Uniform
from ..io.batch import DataDesc, as_descs
from ..model import load_checkpoint, load_params_file, save_params_file
from .base_module import BaseModule

__all__ = ["Module"]


class Module(BaseModule):
    """A symbol bound for training or inference on one device (see the module docstring)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        if isinstance(context, (list, tuple)):
            if len(context) != 1:
                raise MXNetError(f"Module: expected one context (hybridlab runs a module on one device), "
                                 f"got {context}")
            context = context[0]
        self._context = context or current_device()
        self._symbol = symbol
        arg_names = symbol.list_arguments()
        self._data_names = list(data_names or [])
        missing = [n for n in self._data_names if n not in arg_names]
        if missing:
            raise MXNetError(f"Module: data names {missing} are not arguments of the symbol; its arguments are "
                             f"{arg_names}")
        self._label_names = [n for n in (label_names or []) if n in arg_names]
        for name in set(label_names or []) - set(self._label_names):
            warnings.warn(f"Module: label name {name!r} is not an argument of the symbol ({arg_names}); it is "
                          "ignored", stacklevel=2)
        self._state_names = list(state_names or [])
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in arg_names if n not in inputs]
        self._fixed_param_names = list(fixed_param_names or [])
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._arg_params = self._aux_params = None
        self._exec = None
        self._data_shapes = self._label_shapes = None
        self._optimizer = self._updater = None
        self._preload_opt_states = None

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params`` (bind it before use).
        A file that does not fit (a bad graph, parameters the graph does not have) is an
        ``MXNetError`` naming the file."""
        sym, args, auxs = load_checkpoint(prefix, epoch)
        try:
            mod = Module(symbol=sym, **kwargs)
        except MXNetError as err:
            raise MXNetError(f"Module.load: {prefix}-symbol.json: {err}") from None
        _check_loaded_params(mod, args, auxs, f"{prefix}-{epoch:04d}.params")
        mod._arg_params, mod._aux_params = args, auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = f"{prefix}-{epoch:04d}.states"
        return mod

    # ---- names and shapes ----------------------------------------------------------------------
    data_names = property(lambda self: self._data_names)
    label_names = property(lambda self: self._label_names)
    output_names = property(lambda self: self._output_names)
    data_shapes = property(lambda self: self._data_shapes)
    label_shapes = property(lambda self: self._label_shapes)

    @property
    def output_shapes(self):
        self._check_bound("output_shapes")
        shapes = self._symbol.infer_shape(**{d.name: d.shape for d in self._data_shapes + self._label_shapes})[1]
        return list(zip(self._output_names, shapes))

    def _check_bound(self, what):
        if not self.binded:
            raise MXNetError(f"{what}: expected a bound module (call bind first)")

    # ---- binding and parameters ----------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind the executor for ``data_shapes`` / ``label_shapes`` (DataDescs or ``(name, shape)``)."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        data = as_descs(data_shapes, "bind: data_shapes")
        labels = [d for d in as_descs(label_shapes, "bind: label_shapes") if d.name in self._label_names]
        if sorted(d.name for d in data) != sorted(self._data_names):
            raise MXNetError(f"bind: data_shapes expected the data names {self._data_names}, "
                             f"got {[d.name for d in data]}")
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        reqs = {}
        for name in self._symbol.list_arguments():
            if name in self._param_names:
                fixed = name in self._fixed_param_names
                reqs[name] = grad_req if for_training and not fixed else "null"
            elif name in self._data_names:
                reqs[name] = "write" if inputs_need_grad else "null"
            else:
                reqs[name] = "null"
        shapes = {d.name: d.shape for d in data + labels}
        types = {d.name: d.dtype for d in data + labels}
        if shared_module is not None:
            self._arg_params, self._aux_params = shared_module.get_params()
            self.params_initialized = True
        self._exec = self._symbol.simple_bind(self._context, grad_req=reqs, type_dict=types, **shapes)
        self._data_shapes, self._label_shapes = data, labels
        self.binded = True
        if self.params_initialized:        # a rebind keeps the parameters
            self._exec.copy_params_from(self._arg_params, self._aux_params)
        else:
            self._arg_params = {n: nd.zeros(self._exec.arg_dict[n].shape, dtype=self._exec.arg_dict[n].dtype)
                                for n in self._param_names}
            self._aux_params = {n: nd.zeros(a.shape, dtype=a.dtype) for n, a in self._exec.aux_dict.items()}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Fill the parameters: from ``arg_params`` / ``aux_params`` where given (others need
        ``allow_missing`` and come from ``initializer``), else from ``initializer``."""
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. init_params call ignored.",
                          stacklevel=2)
            return
        self._check_bound("init_params")
        attrs = self._symbol.attr_dict()

        def fill(name, arr, given):
            if given is not None and name in given:
                if given[name] is not arr:
                    arr[:] = given[name]
                return
            if given is not None and not allow_missing:
                raise MXNetError(f"init_params: {name!r} is not in the given parameters; expected every "
                                 f"parameter (or allow_missing=True)")
            if initializer is not None:
                initializer(InitDesc(name, attrs.get(name)), arr)

        for name, arr in sorted(self._arg_params.items()):
            fill(name, arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            fill(name, arr, aux_params)
        self.params_initialized = True
        self._exec.copy_params_from(self._arg_params, self._aux_params, allow_extra_params=allow_extra)

    def get_params(self):
        """``(arg_params, aux_params)``: copies of the current parameter values."""
        self._check_ready("get_params")
        for name in self._param_names:
            self._arg_params[name][:] = self._exec.arg_dict[name]
        for name in self._aux_names:
            self._aux_params[name][:] = self._exec.aux_dict[name]
        return self._arg_params, self._aux_params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Set the parameters from ``arg_params`` / ``aux_params``."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)

    def save_params(self, fname):
        """Save the parameters (``arg:``/``aux:`` names) to ``fname``."""
        save_params_file(fname, *self.get_params())

    def load_params(self, fname):
        """Load parameters saved by ``save_params`` (or MXNet) from ``fname``."""
        arg_params, aux_params = load_params_file(fname)
        _check_loaded_params(self, arg_params, aux_params, fname)
        try:
            self.set_params(arg_params, aux_params)
        except MXNetError as err:
            raise MXNetError(f"load_params: {fname}: {err}") from None

    # ---- optimizer -------------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """Create the optimizer (a name with ``optimizer_params``, or an Optimizer) with
        ``rescale_grad = 1 / batch size``, and its updater."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        batch_size = self._data_shapes[0].shape[DataDesc.get_batch_axis(self._data_shapes[0].layout)]
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", 1.0 / batch_size)
            optimizer = _opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **params)
        elif not isinstance(optimizer, _opt.Optimizer):
            raise MXNetError(f"init_optimizer: expected an optimizer name or an Optimizer, got {optimizer!r}")
        self._optimizer = optimizer
        self._updater = _opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def save_optimizer_states(self, fname):
        """Save the updater's states to ``fname`` (atomically)."""
        from ..fileio import write_atomic
        write_atomic(fname, self._updater.get_states(), "optimizer states")

    def load_optimizer_states(self, fname):
        """Load the updater's states from ``fname``."""
        self._updater.set_states(read_file(fname, "optimizer states file"), source=os.fspath(fname))

    # ---- per batch -------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the executor on ``data_batch`` (training mode by default when bound for training); a
        batch with other shapes than the bound ones reshapes the executor first."""
        self._check_ready("forward")
        is_train = self.for_training if is_train is None else is_train
        data = list(data_batch.data)
        labels = list(data_batch.label or []) if self._label_names else []
        if len(data) != len(self._data_names):
            raise MXNetError(f"forward: expected {len(self._data_names)} data arrays ({self._data_names}), "
                             f"got {len(data)}")
        new_shapes = [tuple(d.shape) for d in data]
        if new_shapes != [d.shape for d in self._data_shapes]:
            self.reshape([DataDesc(d.name, s, d.dtype, d.layout) for d, s in zip(self._data_shapes, new_shapes)],
                         [DataDesc(d.name, tuple(a.shape), d.dtype, d.layout)
                          for d, a in zip(self._label_shapes, labels)] or None)
        feed = dict(zip(self._data_names, data))
        feed.update({d.name: a for d, a in zip(self._label_shapes, labels)})
        self._exec.forward(is_train=is_train, **feed)

    def backward(self, out_grads=None):
        """Gradients of the last training forward (``out_grads`` for outputs that are not losses)."""
        self._check_ready("backward")
        self._exec.backward(out_grads)

    def update(self):
        """One optimizer step on every parameter that has a gradient."""
        if not self.optimizer_initialized:
            raise MXNetError("update: expected init_optimizer first")
        for index, name in enumerate(self._param_names):
            grad = self._exec.grad_dict.get(name)
            if grad is not None:
                self._updater(index, grad, self._exec.arg_dict[name])

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward."""
        self._check_ready("get_outputs")
        return list(self._exec.outputs)

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the data inputs (bind with ``inputs_need_grad=True``)."""
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: expected bind(..., inputs_need_grad=True)")
        return [self._exec.grad_dict[n] for n in self._data_names]

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and the outputs of the last forward."""
        eval_metric.update(list(labels or []), self.get_outputs())

    def reshape(self, data_shapes, label_shapes=None):
        """Bind the executor for new input shapes, sharing the parameters (and their gradients)."""
        self._check_bound("reshape")
        data = as_descs(data_shapes, "reshape: data_shapes")
        labels = [d for d in as_descs(label_shapes, "reshape: label_shapes") if d.name in self._label_names]
        self._exec = self._exec.reshape(partial_shaping=True, allow_up_sizing=True,
                                        **{d.name: d.shape for d in data + labels})
        self._data_shapes, self._label_shapes = data, labels or self._label_shapes

    def install_monitor(self, mon):
        """Install a monitor (an object with ``install(executor)``, as MXNet's ``mx.mon.Monitor``)."""
        self._check_bound("install_monitor")
        mon.install(self._exec)

    def __repr__(self):
        state = "bound" if self.binded else "not bound"
        return f"<Module {self._symbol.name or self._output_names} data={self._data_names} {state}>"


def _check_loaded_params(mod, arg_params, aux_params, fname):
    """The parameters of a file name only arguments / auxiliary states of the module's graph, as
    the right kind (``arg:`` / ``aux:``), and their shapes fit what the graph infers from them."""
    params, aux = set(mod._param_names), set(mod._aux_names)
    for kind, given, names in (("arg", arg_params, params), ("aux", aux_params, aux)):
        for name in given:
            if name not in names:
                inputs = mod._data_names + mod._label_names + mod._state_names
                what = ("an auxiliary state" if name in aux else "an argument" if name in params
                        else "a data/label/state input" if name in inputs
                        else "neither an argument nor an auxiliary state")
                raise MXNetError(f"{fname}: parameter '{kind}:{name}' is {what} of the module's graph; expected "
                                 f"'arg:' names among {sorted(params)[:8]} and 'aux:' names among {sorted(aux)[:8]}")
    shapes = {n: tuple(v.shape) for n, v in list(arg_params.items()) + list(aux_params.items())}
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mod._symbol.infer_shape_partial(**shapes)
        except MXNetError as err:
            raise MXNetError(f"{fname}: the parameters do not fit the graph: {err}") from None
