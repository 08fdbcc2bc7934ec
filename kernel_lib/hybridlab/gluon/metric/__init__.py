"""Evaluation metrics (MXNet's ``gluon.metric`` / ``mx.metric``): ``update(labels, preds)`` with
NDArrays (or lists of them), ``get()`` -> ``(name, value)``, ``reset()``, ``get_name_value()``.
Values are computed on the host with NumPy; ``get_global`` keeps counting across ``reset_local``.

Example::

    >>> import hybridlab as mx
    >>> acc = mx.gluon.metric.create('acc')
    >>> acc.update(mx.nd.array([0, 1, 1]), mx.nd.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]]))
    >>> name, value = acc.get()
    >>> name, round(value, 4)
    ('accuracy', 0.6667)
    >>> mx.metric.MSE().get()[0]
    'mse'
"""
from .base import (EvalMetric, CompositeEvalMetric, CustomMetric, alias, check_label_shapes, create, np,
                   register)
from .classification import Accuracy, F1, MCC, PCC, TopKAccuracy
from .probability import CrossEntropy, Loss, NegativeLogLikelihood, Perplexity
from .regression import MAE, MSE, PearsonCorrelation, RMSE

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "PCC", "MAE", "MSE", "RMSE",
           "CrossEntropy", "NegativeLogLikelihood", "Perplexity", "PearsonCorrelation", "Loss", "CustomMetric",
           "create", "register", "alias", "check_label_shapes", "np"]
