"""``PythonModule`` / ``PythonLossModule``: MXNet 1.x's modules written in Python.

``PythonModule(data_names, label_names, output_names)`` implements the module API with no
parameters: ``bind`` records the shapes and asks ``_compute_output_shapes()`` (a subclass defines
it, with ``forward`` / ``backward`` / ``get_outputs``). ``PythonLossModule(name, grad_func=...)`` is
a loss layer: its output is its input (the scores) and its input gradient is
``grad_func(scores, labels)`` (an NDArray or a NumPy array), so it ends a ``SequentialModule``.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> loss = mx.mod.PythonLossModule(grad_func=lambda scores, labels: scores - labels.reshape((-1, 1)))
    >>> loss.bind([('data', (2, 1))], [('softmax_label', (2,))])
    >>> loss.forward(mx.io.DataBatch([mx.nd.array([[3.0], [1.0]])], [mx.nd.array([1.0, 1.0])]))
    >>> loss.backward()
    >>> loss.get_outputs()[0].asnumpy().ravel().tolist(), loss.get_input_grads()[0].asnumpy().ravel().tolist()
    ([3.0, 1.0], [2.0, 0.0])
"""
import logging

from .. import ndarray as nd
from ..base import MXNetError
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """A module without parameters whose computation a subclass writes in Python (see the module
    docstring)."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = list(data_names) if isinstance(data_names, tuple) else data_names
        self._label_names = list(label_names) if isinstance(label_names, tuple) else label_names
        self._output_names = output_names
        self._data_shapes = self._label_shapes = self._output_shapes = None

    data_names = property(lambda self: self._data_names)
    output_names = property(lambda self: self._output_names)
    data_shapes = property(lambda self: self._data_shapes)
    label_shapes = property(lambda self: self._label_shapes)
    output_shapes = property(lambda self: self._output_shapes)

    def get_params(self):
        """No parameters: ``({}, {})``."""
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Nothing to initialize."""
        self.params_initialized = True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Nothing to set."""
        self.params_initialized = True

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """No parameters, no optimizer."""
        self.optimizer_initialized = True

    def update(self):
        """No parameters to update."""

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and the outputs (when bound with labels)."""
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError("PythonModule does not support presliced labels")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Record the input shapes and compute the output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if grad_req != "write":
            raise MXNetError(f"PythonModule.bind: only grad_req='write' is supported, got {grad_req!r}")
        names = [desc[0] for desc in data_shapes]
        if names != list(self._data_names):
            raise MXNetError(f"PythonModule.bind: expected data shapes for {self._data_names}, got {names}")
        if label_shapes is not None:
            names = [desc[0] for desc in label_shapes]
            if self._label_names is None or names != list(self._label_names):
                raise MXNetError(f"PythonModule.bind: expected label shapes for {self._label_names}, got {names}")
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._data_shapes, self._label_shapes = data_shapes, label_shapes
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """``[(name, shape)]`` of the outputs, from ``self._data_shapes`` (a subclass defines it)."""
        raise NotImplementedError()


class PythonLossModule(PythonModule):
    """A loss layer in Python: output = the input scores; input gradient = ``grad_func(scores,
    labels)`` (or a subclass's ``_backward_impl``)."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",), logger=logging,
                 grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        if len(data_names) != 1 or len(label_names) != 1:
            raise MXNetError(f"PythonLossModule: expected one data name and one label name, got {list(data_names)} "
                             f"and {list(label_names)}")
        if grad_func is not None and not callable(grad_func):
            raise MXNetError(f"PythonLossModule: grad_func expected a function, got {grad_func!r}")
        self._name = name
        self._scores = self._labels = self._scores_grad = None
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        """Keep the scores (and, in training, the labels) for ``backward``."""
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        """The scores of the last forward."""
        return [self._scores]

    def backward(self, out_grads=None):
        """The scores' gradient (``grad_func``); a loss takes no ``out_grads``."""
        if out_grads is not None:
            raise MXNetError("PythonLossModule.backward: for a loss module, out_grads should be None")
        if not self.for_training:
            raise MXNetError("PythonLossModule.backward: expected a module bound with for_training=True")
        self._backward_impl()

    def _backward_impl(self):
        """Compute ``self._scores_grad`` from ``self._scores`` and ``self._labels``."""
        if self._grad_func is None:
            raise NotImplementedError()
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context=True):
        """The scores' gradient of the last backward."""
        return [self._scores_grad]

    def install_monitor(self, mon):
        raise NotImplementedError()
