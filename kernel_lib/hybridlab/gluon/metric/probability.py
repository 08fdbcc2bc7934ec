"""Metrics of predicted probabilities and of losses: cross-entropy, negative log-likelihood,
perplexity and the mean of given loss values."""
import math

import numpy

from ...ndarray.ndarray import NDArray
from .base import EvalMetric, alias, check_label_shapes, register, _host


@alias("ce")
class CrossEntropy(EvalMetric):
    """Mean of ``-log(p[label] + eps)`` over samples (predictions are probabilities)."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).ravel(), _host(pred)
            if label.shape[0] != pred.shape[0]:
                raise ValueError(f"{self.name}: expected {pred.shape[0]} labels (one per prediction row), "
                                 f"got {label.shape[0]}")
            prob = pred[numpy.arange(label.shape[0]), numpy.int64(label)]
            self._add(float((-numpy.log(prob + self.eps)).sum()), label.shape[0])


@alias("nll_loss")
class NegativeLogLikelihood(CrossEntropy):
    """The same value as CrossEntropy, named 'nll-loss'."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps=eps, name=name, output_names=output_names, label_names=label_names)


@register
class Perplexity(EvalMetric):
    """``exp`` of the mean negative log-probability of the labels (``ignore_label`` excluded)."""

    def __init__(self, ignore_label=None, axis=-1, name="perplexity", output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names, label_names=label_names)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        if len(labels) != len(preds):
            raise ValueError(f"Perplexity: expected as many labels as predictions, got {len(labels)} and "
                             f"{len(preds)}")
        loss, num = 0.0, 0
        for label, pred in zip(*check_label_shapes(labels, preds, True)):
            label, pred = _host(label), _host(pred)
            if label.size != pred.size / pred.shape[-1]:
                raise ValueError(f"shape mismatch: {label.shape} vs. {pred.shape}")
            label = label.reshape(-1).astype("int64")
            # as MXNet's pick (mode 'clip'): a label out of range reads the nearest class
            picked = numpy.clip(label, 0, pred.shape[self.axis] - 1)
            probs = numpy.take_along_axis(numpy.moveaxis(pred, self.axis, -1).reshape(-1, pred.shape[self.axis]),
                                          picked[:, None], axis=-1)[:, 0]
            if self.ignore_label is not None:
                ignore = label == self.ignore_label
                num -= int(ignore.sum())
                probs = numpy.where(ignore, 1.0, probs)
            loss -= float(numpy.log(numpy.maximum(1e-10, probs)).sum())
            num += probs.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


@register
class Loss(EvalMetric):
    """Mean of the given loss values (labels are ignored)."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            values = _host(pred)
            self._add(float(values.sum()), values.size)
