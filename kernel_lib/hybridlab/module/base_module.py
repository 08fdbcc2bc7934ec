"""``BaseModule``: the training and evaluation loops of MXNet 1.x's symbolic Module API (``fit``,
``score``, ``predict``, ``iter_predict``), written once over the per-batch steps a module defines
(``bind``, ``init_params``, ``init_optimizer``, ``forward``, ``backward``, ``update``,
``update_metric``, ``get_outputs``, ``get_params`` / ``set_params``). ``fit`` logs what MXNet logs
(``Epoch[0] Train-accuracy=...``, ``Time cost``, ``Validation-...``) through ``logging``.
"""
import logging
import time
import warnings

import numpy as np

from ..gluon import metric as _metric
from ..base import MXNetError
from ..initializer import Uniform
from ..io import DataBatch, NDArrayIter
from ..model import BatchEndParam, save_checkpoint

__all__ = ["BaseModule"]


def _as_list(obj):
    return obj if isinstance(obj, (list, tuple)) else [obj]


class BaseModule:
    """The loops shared by modules; subclasses implement the per-batch steps."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None

    @property
    def symbol(self):
        return self._symbol

    def forward_backward(self, data_batch):
        """A training forward then backward on ``data_batch``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Set the parameters from ``arg_params`` / ``aux_params``: ``init_params`` with no initializer,
        or with ``allow_missing`` the given values only (``_assign_params``; ignored with a warning
        when initialized and not ``force_init``), as MXNet."""
        if not allow_missing or not hasattr(self, "_assign_params"):
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. set_params call ignored.",
                          stacklevel=2)
            return
        self._assign_params(arg_params, aux_params, allow_missing, force_init, allow_extra)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Nothing to prepare for dense arrays (MXNet pulls sparse rows here)."""

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None, score_end_callback=None,
              reset=True, epoch=0, sparse_row_id_fn=None):
        """Run ``eval_data`` in predict mode and return ``eval_metric``'s ``[(name, value)]``."""
        self._check_ready("score")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        actual = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn)
            self.forward(batch, is_train=False)
            self.update_metric(eval_metric, batch.label)
            for callback in _as_list(batch_end_callback or []):
                callback(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
            actual = nbatch
        for callback in _as_list(score_end_callback or []):
            callback(BatchEndParam(epoch=epoch, nbatch=actual, eval_metric=eval_metric, locals=locals()))
        return eval_metric.get_global_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs without padding, batch number, batch)`` for each batch of ``eval_data``."""
        self._check_ready("iter_predict")
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn)
            self.forward(batch, is_train=False)
            pad = batch.pad or 0
            yield [out[0:out.shape[0] - pad] for out in self.get_outputs()], nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True, always_output_list=False,
                sparse_row_id_fn=None):
        """The outputs over ``eval_data`` (a DataIter, or one NDArray / NumPy batch), padding removed;
        with ``merge_batches`` concatenated along the batch axis (one array for a single output)."""
        from ..ndarray.ndarray import NDArray, array
        from ..ndarray import concat
        self._check_ready("predict")
        if isinstance(eval_data, (NDArray, np.ndarray)):
            batch = array(eval_data) if isinstance(eval_data, np.ndarray) else eval_data
            self.forward(DataBatch([batch]), is_train=False)
            return self.get_outputs()[0]
        outputs = [[o.copy() for o in outs]
                   for outs, _, _ in self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not outputs or not merge_batches:
            return outputs
        n = len(outputs[0])
        if any(len(o) != n for o in outputs):
            raise MXNetError("predict: cannot merge batches whose numbers of outputs differ; expected "
                             "merge_batches=False")
        merged = [concat(*[o[i] for o in outputs], dim=0) for i in range(n)]
        return merged[0] if n == 1 and not always_output_list else merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
            eval_end_callback=None, eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0,
            num_epoch=None, validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """Train on ``train_data`` for epochs ``begin_epoch`` .. ``num_epoch - 1``: bind, initialize the
        parameters (``initializer``, or ``arg_params``/``aux_params``) and the optimizer, then per
        batch forward, backward, update and the metric; per epoch log the metric and time, call
        ``epoch_end_callback(epoch, symbol, arg_params, aux_params)`` and score ``eval_data``."""
        if num_epoch is None:
            raise MXNetError("fit: expected num_epoch (the number of epochs to train), got None")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label, for_training=True,
                  force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        validation_metric = validation_metric or eval_metric
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            for data_batch in train_data:
                self.forward_backward(data_batch)
                self.update()
                self.update_metric(eval_metric, data_batch.label)
                for callback in _as_list(batch_end_callback or []):
                    callback(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
                nbatch += 1
            for name, value in eval_metric.get_global_name_value():
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, value)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            for callback in _as_list(epoch_end_callback or []):
                callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                for name, value in self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                              batch_end_callback=eval_batch_end_callback, epoch=epoch):
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, value)
            train_data.reset()

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``prefix-%04d.states``)."""
        arg_params, aux_params = self.get_params()
        save_checkpoint(prefix, epoch, self.symbol, arg_params, aux_params, remove_amp_cast)
        if save_optimizer_states:
            self.save_optimizer_states(f"{prefix}-{epoch:04d}.states")

    def _skip_optimizer_init(self, force_init):
        """``init_optimizer``'s first step: the module must be ready; an optimizer already there is
        kept (with MXNet's warning) unless ``force_init``. True: nothing more to do."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return True
        return False

    def _check_ready(self, what):
        if not (self.binded and self.params_initialized):
            raise MXNetError(f"{what}: expected a bound module with initialized parameters (call bind and "
                             f"init_params first), got binded={self.binded}, "
                             f"params_initialized={self.params_initialized}")
