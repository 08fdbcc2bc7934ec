"""``Module``: MXNet 1.x's symbolic training API over a ``DataParallelExecutorGroup``: one
executor (``Symbol.simple_bind``) per context, each for its share (``work_load_list``) of the batch.

``Module(symbol, data_names, label_names, context)``; ``bind(data_shapes, label_shapes)`` makes the
executors (arguments that are neither data nor labels nor states are the parameters); ``init_params``
fills them (an initializer, or given ``arg_params``/``aux_params``); ``init_optimizer`` creates the
optimizer with ``rescale_grad = 1 / batch size`` and, for several contexts, the kvstore that sums the
gradients over devices (updating the parameters itself unless ``MXNET_UPDATE_ON_KVSTORE=0``), as
``mx.kv.for_devices`` chooses it (MXNet's ``model._create_kvstore``); then ``forward`` / ``backward`` /
``update`` per batch, or ``fit``
(``BaseModule``). A batch whose shapes differ from the bound ones reshapes the executors (sharing the
parameters), so variable batch sizes and sequence lengths work; the cached op keeps one compiled
program per input signature. With one context the batch goes into the one executor as it is.

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
from .. import kvstore as kvs
from ..model import (_initialize_kvstore, _update_params, _update_params_on_kvstore,
                     load_checkpoint, load_params_file, save_params_file)
from .base_module import BaseModule
from .executor_group import DataParallelExecutorGroup

__all__ = ["Module"]


class Module(BaseModule):
    """A symbol bound for training or inference on one device (see the module docstring)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        context = context or current_device()
        self._context = list(context) if isinstance(context, (list, tuple)) else [context]
        self._work_load_list = list(work_load_list) if work_load_list is not None else [1] * len(self._context)
        if len(self._work_load_list) != len(self._context):
            raise MXNetError(f"Module: work_load_list expected one weight per context ({len(self._context)}), "
                             f"got {self._work_load_list}")
        self._group2ctxs = group2ctxs
        self._compression_params = compression_params
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
        self._exec_group = None
        self._kvstore, self._update_on_kvstore, self._grad_req = None, False, None
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
    @property
    def _exec(self):
        """The first device's executor."""
        return self._exec_group.execs[0] if self._exec_group is not None else None

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind one executor per context for ``data_shapes`` / ``label_shapes`` (DataDescs or
        ``(name, shape)``); ``shared_module``: use its parameters and memory."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        data = as_descs(data_shapes, "bind: data_shapes")
        labels = [d for d in as_descs(label_shapes, "bind: label_shapes") if d.name in self._label_names]
        if sorted(d.name for d in data) != sorted(self._data_names):
            raise MXNetError(f"bind: data_shapes expected the data names {self._data_names}, "
                             f"got {[d.name for d in data]}")
        if self.binded and self.params_initialized:     # a rebind keeps the trained parameters
            self._exec_group.get_params(self._arg_params, self._aux_params)
        self.binded, self._exec_group = False, None
        self.for_training, self.inputs_need_grad, self._grad_req = for_training, inputs_need_grad, grad_req
        shared_group = None
        if shared_module is not None:
            if not (shared_module.binded and shared_module.params_initialized):
                raise MXNetError("bind: shared_module expected bound with initialized parameters")
            shared_group = shared_module._exec_group
            if len(shared_group.execs) < len(self._context):
                raise MXNetError("bind: shared_module expected at least as many contexts as this module")
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, data, labels or None, self._param_names,
            for_training, inputs_need_grad, shared_group, logger=self.logger,
            fixed_param_names=self._fixed_param_names, grad_req=grad_req, state_names=self._state_names,
            group2ctxs=self._group2ctxs)
        self._data_shapes, self._label_shapes = data, labels
        self.binded = True
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params, self._aux_params = shared_module._arg_params, shared_module._aux_params
        elif self.params_initialized:
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            group = self._exec_group
            self._arg_params = {n: nd.zeros(a[0].shape, dtype=a[0].dtype, stype=a[0].stype)
                                for n, a in zip(group.param_names, group.param_arrays)}
            self._aux_params = {n: nd.zeros(a[0].shape, dtype=a[0].dtype, stype=a[0].stype)
                                for n, a in zip(group.aux_names, group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)

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
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def get_params(self):
        """``(arg_params, aux_params)``: the current parameter values (the mean over devices; with
        updates on the kvstore, the store's)."""
        self._check_ready("get_params")
        self._exec_group.get_params(self._arg_params, self._aux_params)
        if self._kvstore is not None and self._update_on_kvstore:
            for name, value in sorted(self._arg_params.items()):
                if value.stype == "row_sparse":
                    self._kvstore.row_sparse_pull(name, value, row_ids=nd.arange(0, value.shape[0]))
        return self._arg_params, self._aux_params

    def _assign_params(self, arg_params, aux_params, allow_missing, force_init, allow_extra):
        """``set_params(allow_missing=True)``: the given values into the executors (a name the module
        lacks is a ValueError unless ``allow_extra``)."""
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        self.params_initialized = True

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
        ``rescale_grad = 1 / batch size`` and, for several contexts, the kvstore that sums the
        gradients (and updates the parameters, unless ``MXNET_UPDATE_ON_KVSTORE=0``)."""
        if self._skip_optimizer_init(force_init):
            return
        self._exec_group.get_params(self._arg_params, self._aux_params)    # the kvstore starts from these
        shapes = [p.shape for p in self._arg_params.values()]
        kvstore, update_on_kvstore = kvs.for_devices(kvstore, len(self._context), shapes)
        batch_size = self._exec_group.batch_size
        if kvstore is not None and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size
        names = self._exec_group.param_names
        n = len(self._context)
        idx2name = (dict(enumerate(names)) if update_on_kvstore
                    else {i * n + k: name for k in range(n) for i, name in enumerate(names)})
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", rescale_grad)
            optimizer = _opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **params)
        elif isinstance(optimizer, _opt.Optimizer):
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn(f"Optimizer created manually outside Module but rescale_grad is not normalized to "
                              f"1.0/batch_size/num_workers ({optimizer.rescale_grad} vs. {rescale_grad}). Is this "
                              "intended?", stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        else:
            raise MXNetError(f"init_optimizer: expected an optimizer name or an Optimizer, got {optimizer!r}")
        self._optimizer, self._kvstore, self._update_on_kvstore = optimizer, kvstore, update_on_kvstore
        self._updater = None
        if kvstore is not None:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(optimizer)
            _initialize_kvstore(kvstore, self._exec_group.param_arrays, self._arg_params, self._param_names,
                                update_on_kvstore)
        if not update_on_kvstore:
            self._updater = _opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, kvstore and updater (bucketing's modules share them)."""
        if not shared_module.optimizer_initialized:
            raise MXNetError("borrow_optimizer: expected shared_module with an initialized optimizer")
        self._optimizer, self._kvstore = shared_module._optimizer, shared_module._kvstore
        self._update_on_kvstore, self._updater = shared_module._update_on_kvstore, shared_module._updater
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        """Save the optimizer states (the kvstore's when it updates) to ``fname`` (atomically)."""
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
            return
        from ..fileio import write_atomic
        write_atomic(fname, self._updater.get_states(), "optimizer states")

    def load_optimizer_states(self, fname):
        """Load the optimizer states (into the kvstore when it updates) from ``fname``."""
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            return
        self._updater.set_states(read_file(fname, "optimizer states file"), source=os.fspath(fname))

    # ---- per batch -------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the executors on ``data_batch`` (training mode by default when bound for training);
        a batch with other shapes than the bound ones reshapes them first."""
        self._check_ready("forward")
        data = list(data_batch.data)
        if len(data) != len(self._data_names):
            raise MXNetError(f"forward: expected {len(self._data_names)} data arrays ({self._data_names}), "
                             f"got {len(data)}")
        new_shapes = [tuple(d.shape) for d in data]
        labels = list(getattr(data_batch, "label", None) or []) if self._label_names else []
        unbound_labels = labels and self._exec_group.label_shapes is None    # bound by a label-less reshape
        if new_shapes != [tuple(d.shape) for d in self._data_shapes] or unbound_labels:
            provided = getattr(data_batch, "provide_data", None)
            dshapes = provided or [DataDesc(d.name, s, d.dtype, d.layout)
                                   for d, s in zip(self._data_shapes, new_shapes)]
            lshapes = getattr(data_batch, "provide_label", None) if labels else None
            lshapes = lshapes or [DataDesc(d.name, tuple(a.shape), d.dtype, d.layout)
                                  for d, a in zip(self._label_shapes, labels)] or None
            self.reshape(dshapes, lshapes)
        self._exec_group.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        """Gradients of the last training forward (``out_grads`` for outputs that are not losses)."""
        self._check_ready("backward")
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """One optimizer step: gradients summed over devices (kvstore), every parameter updated."""
        if not self.optimizer_initialized:
            raise MXNetError("update: expected init_optimizer first")
        group = self._exec_group
        if self._update_on_kvstore:
            _update_params_on_kvstore(group.param_arrays, group.grad_arrays, self._kvstore, group.param_names)
        else:
            _update_params(group.param_arrays, group.grad_arrays, updater=self._updater,
                           num_device=len(self._context), kvstore=self._kvstore, param_names=group.param_names)

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward (per output, one array per device when not merged)."""
        self._check_ready("get_outputs")
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the data inputs (bind with ``inputs_need_grad=True``)."""
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: expected bind(..., inputs_need_grad=True)")
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        """The arrays of ``state_names`` (e.g. RNN states)."""
        self._check_ready("get_states")
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        """Set the states from ``states`` (as ``get_states(merge_multi_context=False)`` gives) or to ``value``."""
        self._check_ready("set_states")
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and the outputs of the last forward."""
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def reshape(self, data_shapes, label_shapes=None):
        """Executors for new input shapes, sharing the parameters (and their gradients)."""
        self._check_bound("reshape")
        data = as_descs(data_shapes, "reshape: data_shapes")
        labels = [d for d in as_descs(label_shapes, "reshape: label_shapes") if d.name in self._label_names]
        self._exec_group.reshape(data, labels or None)    # no labels: inferred from the data
        self._data_shapes, self._label_shapes = data, labels or self._label_shapes

    @property
    def _total_exec_bytes(self):
        """Bytes of the arrays this module's executors hold (arguments, gradients, auxiliary states,
        outputs; each array counted once), MXNet's memory figure of a bound module."""
        seen, total = set(), 0
        for ex in (self._exec_group.execs if self._exec_group is not None else []):
            arrays = (list(ex.arg_dict.values()) + list(ex.grad_dict.values()) + list(ex.aux_dict.values())
                      + list(ex.outputs))
            for a in arrays:
                if a is not None and id(a) not in seen:
                    seen.add(id(a))
                    total += a.size * a.dtype.itemsize
        return total

    def install_monitor(self, mon):
        """Install a monitor (an object with ``install(executor)``, as MXNet's ``mx.mon.Monitor``)."""
        self._check_bound("install_monitor")
        self._exec_group.install_monitor(mon)

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
