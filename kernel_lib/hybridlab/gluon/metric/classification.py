"""Classification metrics: accuracy, top-k accuracy, F1 and MCC (binary, macro or micro), PCC
(multiclass MCC from a confusion matrix)."""
import math

import numpy

from .base import EvalMetric, alias, check_label_shapes, register, _host


@alias("acc")
class Accuracy(EvalMetric):
    """Share of predictions equal to the label; predictions with one more axis than the labels are
    class scores (argmax over ``axis``)."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred, label = _host(pred), _host(label)
            if pred.shape != label.shape:
                pred = numpy.argmax(pred, axis=self.axis)
            pred = pred.astype("int32").ravel()
            label = label.astype("int32").ravel()
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), len(pred))


@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Share of samples whose label is among the ``top_k`` highest scores."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        if top_k <= 1:
            raise AssertionError(f"Please use Accuracy if top_k is no more than 1 (got top_k={top_k})")
        super().__init__(f"{name}_{top_k}", top_k=top_k, output_names=output_names, label_names=label_names)
        self.top_k = top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _host(pred).astype("float32")
            if pred.ndim > 2:
                raise AssertionError(f"Predictions should be no more than 2 dims, got shape {pred.shape}")
            order = numpy.argpartition(pred, -self.top_k)
            label = _host(label).astype("int32")
            check_label_shapes(label, order)
            if order.ndim == 1:
                self._add(int((order.flat == label.flat).sum()), order.shape[0])
                continue
            num_classes = order.shape[1]
            correct = sum(int((order[:, num_classes - 1 - j].flat == label.flat).sum())
                          for j in range(min(num_classes, self.top_k)))
            self._add(correct, order.shape[0])


class _BinaryStats:
    """True/false positives/negatives of a binary classifier (predictions (n, 2): argmax)."""

    def __init__(self):
        self.tp = self.fp = self.fn = self.tn = 0

    def update(self, label, pred, metric_name):
        pred, label = _host(pred), _host(label).astype("int32").ravel()
        pred_label = numpy.argmax(pred, axis=1) if pred.ndim > 1 else (pred > 0.5).astype("int32")
        check_label_shapes(label, pred_label)
        if len(numpy.unique(label)) > 2:
            raise ValueError(f"{metric_name} currently only supports binary classification, got labels "
                             f"{numpy.unique(label).tolist()}")
        pt, lt = pred_label == 1, label == 1
        self.tp += int((pt & lt).sum())
        self.fp += int((pt & ~lt).sum())
        self.fn += int((~pt & lt).sum())
        self.tn += int((~pt & ~lt).sum())

    @property
    def total(self):
        return self.tp + self.fp + self.fn + self.tn

    def fscore(self):
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp > 0 else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn > 0 else 0.0
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0

    def mcc(self):
        if not self.total:
            return 0.0
        terms = [self.tp + self.fp, self.tp + self.fn, self.tn + self.fp, self.tn + self.fn]
        denom = 1.0
        for t in terms:
            if t != 0:
                denom *= t
        return (self.tp * self.tn - self.fp * self.fn) / math.sqrt(denom)


class _BinaryMetric(EvalMetric):
    """F1 / MCC: ``average='macro'`` averages the per-update score, 'micro' scores all samples."""

    _score = None

    def __init__(self, name, output_names=None, label_names=None, average="macro"):
        if average not in ("macro", "micro"):
            raise ValueError(f"average: expected 'macro' or 'micro', got {average!r}")
        self.average = average
        self._stats, self._global_stats = _BinaryStats(), _BinaryStats()
        super().__init__(name, output_names=output_names, label_names=label_names, average=average)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._stats.update(label, pred, self.__class__.__name__)
            self._global_stats.update(label, pred, self.__class__.__name__)
        if self.average == "macro":
            self.sum_metric += self._score(self._stats)
            self.global_sum_metric += self._score(self._global_stats)
            self.num_inst += 1
            self.global_num_inst += 1
            # MXNet resets the local and the global counts: global 'macro' averages per-update scores
            self._stats, self._global_stats = _BinaryStats(), _BinaryStats()
        else:
            self.sum_metric = self._score(self._stats) * self._stats.total
            self.global_sum_metric = self._score(self._global_stats) * self._global_stats.total
            self.num_inst = self._stats.total
            self.global_num_inst = self._global_stats.total

    def reset(self):
        super().reset()
        self._stats, self._global_stats = _BinaryStats(), _BinaryStats()

    def reset_local(self):
        super().reset_local()
        self._stats = _BinaryStats()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classifier (positive class 1)."""

    _score = staticmethod(_BinaryStats.fscore)

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier."""

    _score = staticmethod(_BinaryStats.mcc)

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)


@register
class PCC(EvalMetric):
    """The multiclass Matthews correlation coefficient from the K x K confusion matrix of every update
    since ``reset_local`` (``get_global``: since ``reset``); NaN when predictions or labels are all one
    class. Predictions are class scores (argmax over axis 1) or, shaped as the labels, class indices.
    For two classes it equals ``MCC``.

    Example::

        >>> import hybridlab as mx
        >>> pcc = mx.metric.PCC()
        >>> pcc.update([mx.nd.array([0, 1, 1, 0])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.7, 0.3]])])
        >>> name, value = pcc.get()
        >>> name, round(value, 4)
        ('pcc', 0.5774)
    """

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name, output_names=output_names, label_names=label_names)

    def _grow(self, k):
        inc = k - self.k
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)))
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)))
        self.k = k

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x, y = cmat.sum(axis=1), cmat.sum(axis=0)
        cov_xx, cov_yy = numpy.sum(x * (n - x)), numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).astype("int32").ravel(), _host(pred)
            pred = numpy.argmax(pred, axis=1) if pred.shape != _host(label).shape and pred.ndim > 1 \
                else pred.astype("int32")
            pred = pred.ravel()
            check_label_shapes(label, pred)
            if len(label) and min(label.min(), pred.min()) < 0:
                raise ValueError(f"{self.name}: expected class indices >= 0, got "
                                 f"{int(min(label.min(), pred.min()))}")
            n = int(max(pred.max(), label.max())) + 1 if len(label) else 0
            if n > self.k:
                self._grow(n)
            bcm = numpy.zeros((self.k, self.k))
            numpy.add.at(bcm, (pred, label), 1)
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, value):        # EvalMetric's resets assign it; the value is derived
        pass

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, value):
        pass

    def reset(self):
        self.global_num_inst = 0
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0
        self.lcm = numpy.zeros((self.k, self.k))
