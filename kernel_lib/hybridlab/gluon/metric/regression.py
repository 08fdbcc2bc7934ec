"""Regression metrics: mean absolute / squared error, RMSE and Pearson correlation."""
import math

import numpy

from .base import EvalMetric, alias, check_label_shapes, register, _host


class _Regression(EvalMetric):
    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label), _host(pred)
            if label.ndim == 1:
                label = label.reshape(label.shape[0], 1)
            if pred.ndim == 1:
                pred = pred.reshape(pred.shape[0], 1)
            self._add(float(self._batch(label - pred)), 1)


@register
class MAE(_Regression):
    """Mean absolute error (the mean over updates of each batch's mean)."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)

    @staticmethod
    def _batch(err):
        return numpy.abs(err).mean()


@register
class MSE(_Regression):
    """Mean squared error (the mean over updates of each batch's mean)."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)

    @staticmethod
    def _batch(err):
        return (err ** 2.0).mean()


@register
class RMSE(_Regression):
    """Root mean squared error (the mean over updates of each batch's RMSE)."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)

    @staticmethod
    def _batch(err):
        return numpy.sqrt((err ** 2.0).mean())


@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels: 'macro' averages per-update coefficients,
    'micro' computes one over every sample seen."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        if average not in ("macro", "micro"):
            raise ValueError(f"average: expected 'macro' or 'micro', got {average!r}")
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names, average=average)

    def reset(self):
        super().reset()
        self._sums = numpy.zeros(6)   # n, sum p, sum l, sum p*p, sum l*l, sum p*l (float64)

    def reset_local(self):
        super().reset_local()
        self._sums = numpy.zeros(6)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _host(label).ravel().astype(numpy.float64)
            pred = _host(pred).ravel().astype(numpy.float64)
            if self.average == "macro":
                self._add(float(numpy.corrcoef(pred, label)[0, 1]), 1)
            else:
                self._sums += [pred.size, pred.sum(), label.sum(), (pred * pred).sum(), (label * label).sum(),
                               (pred * label).sum()]
                self.num_inst += 1
                self.global_num_inst += 1

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return (self.name, float(self.sum_metric / self.num_inst))
        n, sp, sl, spp, sll, spl = self._sums
        cov = spl - sp * sl / n
        return (self.name, float(cov / math.sqrt((spp - sp * sp / n) * (sll - sl * sl / n))))
