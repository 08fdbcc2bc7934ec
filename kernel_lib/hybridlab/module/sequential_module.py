"""``SequentialModule``: MXNet 1.x's chain of modules. Each module's outputs are the next one's data:
``forward`` runs them in order, ``backward`` runs them in reverse, handing each module's input
gradients to the one before as its output gradients (so every module after the first is bound with
``inputs_need_grad`` when training). ``add(module, take_labels=True)`` gives a module the batch's
labels (a loss module, any position); ``auto_wiring=True`` renames the previous outputs to the
module's data names.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> fc = mx.mod.Module(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc'), label_names=None)
    >>> out = mx.sym.SoftmaxOutput(mx.sym.var('data'), name='softmax')
    >>> seq = mx.mod.SequentialModule().add(fc).add(mx.mod.Module(out), take_labels=True, auto_wiring=True)
    >>> seq.bind([('data', (4, 3))], [('softmax_label', (4,))])
    >>> seq.init_params(mx.init.Zero())
    >>> seq.forward(mx.io.DataBatch([mx.nd.ones((4, 3))], [mx.nd.zeros(4)]), is_train=False)
    >>> seq.get_outputs()[0].asnumpy().tolist()[0], seq.output_names
    ([0.5, 0.5], ['softmax_output'])
"""
import copy
import logging

from ..base import MXNetError
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """Modules chained output to data (see the module docstring)."""

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module`` (meta ``take_labels`` / ``auto_wiring``, see the module docstring);
        returns self, so calls chain."""
        for key in kwargs:
            if key not in self._meta_keys:
                raise MXNetError(f"SequentialModule.add: unknown meta {key!r}; expected one of "
                                 f"{sorted(self._meta_keys)}")
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = self.params_initialized = self.optimizer_initialized = False
        return self

    # ---- names and shapes ------------------------------------------------------------------------
    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        self._check_bound("data_shapes")
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        self._check_bound("label_shapes")
        return self._label_shapes

    @property
    def output_shapes(self):
        self._check_bound("output_shapes")
        return self._modules[-1].output_shapes

    @property
    def symbol(self):
        return self._modules[-1].symbol if self._modules else None

    def _check_bound(self, what):
        if not self.binded:
            raise MXNetError(f"SequentialModule.{what}: expected a bound module (call bind first)")

    def _takes_labels(self, i):
        return bool(self._metas[i].get(self.META_TAKE_LABELS, False))

    # ---- parameters ------------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)`` of all modules, merged."""
        self._check_ready("get_params")
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialize every module's parameters; two modules may not have a parameter of one name."""
        if self.params_initialized and not force_init:
            return
        self._check_bound("init_params")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                               allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        owners = ({}, {})
        for i, module in enumerate(self._modules):
            for known, names in zip(owners, module.get_params()):
                for name in names:
                    if name in known:
                        j = known[name]
                        raise MXNetError(f"SequentialModule: duplicated parameter names: name {name!r} in layer "
                                         f"{i} ({type(module).__name__}) is already used in layer {j} "
                                         f"({type(self._modules[j]).__name__})")
                    known[name] = i
        self.params_initialized = True

    # ---- binding and optimizer -------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind each module for the previous one's output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise MXNetError("SequentialModule.bind: inputs_need_grad=True expected for_training=True")
        if shared_module is not None:
            raise MXNetError("SequentialModule.bind: shared_module is not supported; expected None")
        if not self._modules:
            raise MXNetError("SequentialModule.bind: attempting to bind an empty SequentialModule")
        self.binded = True
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._label_shapes = label_shapes
        shapes = data_shapes
        anybody_needs_labels = False
        for i, module in enumerate(self._modules):
            labels = label_shapes if self._takes_labels(i) else None
            anybody_needs_labels = anybody_needs_labels or self._takes_labels(i)
            if self._metas[i].get(self.META_AUTO_WIRING, False):
                names = module.data_names
                if len(names) != len(shapes):
                    raise MXNetError(f"SequentialModule.bind: auto_wiring of layer {i} expected {len(names)} "
                                     f"inputs ({names}), got {len(shapes)} outputs of the layer before")
                shapes = [(name, tuple(desc[1])) for name, desc in zip(names, shapes)]
            module.bind(data_shapes=shapes, label_shapes=labels, for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and i > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        if not anybody_needs_labels:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """An optimizer for every module."""
        if self._skip_optimizer_init(force_init):
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                                  force_init=force_init)
        self.optimizer_initialized = True

    # ---- per batch -------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the modules in order, each on the previous one's outputs."""
        self._check_ready("forward")
        batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            batch.data = module.get_outputs()
            if hasattr(batch, "provide_data"):
                names = [desc[0] for desc in module.output_shapes]
                batch.provide_data = [(name, x.shape) for name, x in zip(names, batch.data)]

    def backward(self, out_grads=None):
        """Backward through the modules in reverse order."""
        self._check_ready("backward")
        for i in range(len(self._modules) - 1, -1, -1):
            self._modules[i].backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = self._modules[i].get_input_grads()

    def update(self):
        self._check_ready("update")
        if not self.optimizer_initialized:
            raise MXNetError("SequentialModule.update: expected init_optimizer first")
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_ready("get_outputs")
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready("get_input_grads")
        if not self.inputs_need_grad:
            raise MXNetError("SequentialModule.get_input_grads: expected bind(..., inputs_need_grad=True)")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the outputs of each module that takes labels."""
        self._check_ready("update_metric")
        for i, module in enumerate(self._modules):
            if self._takes_labels(i):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._check_bound("install_monitor")
        for module in self._modules:
            module.install_monitor(mon)
