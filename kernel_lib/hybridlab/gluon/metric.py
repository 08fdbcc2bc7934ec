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
import math
import numbers

import numpy

from ..ndarray.ndarray import NDArray

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "MAE", "MSE", "RMSE",
           "CrossEntropy", "NegativeLogLikelihood", "Perplexity", "PearsonCorrelation", "Loss", "CustomMetric",
           "create", "register", "alias", "check_label_shapes", "np"]

_REGISTRY = {}


def register(klass):
    """Register a metric class under its lower-cased name."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*names):
    """Register a metric class under extra names (a decorator)."""
    def deco(klass):
        register(klass)
        for n in names:
            _REGISTRY[n.lower()] = klass
        return klass
    return deco


def create(metric, *args, **kwargs):
    """A metric from a name ('acc', 'f1', 'ce', ...), a callable ``feval(label, pred)`` (a
    ``CustomMetric``), a list of those (a ``CompositeEvalMetric``) or a metric (returned as is)."""
    if callable(metric) and not isinstance(metric, type):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if not isinstance(metric, str) or metric.lower() not in _REGISTRY:
        raise ValueError(f"Metric must be either callable or in {sorted(_REGISTRY)}, got {metric!r}")
    return _REGISTRY[metric.lower()](*args, **kwargs)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Check that labels and predictions match in number (``shape=False``) or shape; with ``wrap``
    single NDArrays become one-element lists."""
    if not shape:
        label_shape, pred_shape = len(labels), len(preds)
    else:
        label_shape, pred_shape = labels.shape, preds.shape
    if label_shape != pred_shape:
        raise ValueError(f"Shape of labels {label_shape} does not match shape of predictions {pred_shape}")
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


def _host(x):
    return x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)


class EvalMetric:
    """Base class: accumulates ``sum_metric`` over ``num_inst`` (local, and global across
    ``reset_local``); ``get()`` is their ratio (NaN before any update)."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    __repr__ = __str__

    def get_config(self):
        """The arguments that re-create this metric with ``create``."""
        config = dict(self._kwargs)
        config.update({"metric": self.__class__.__name__, "name": self.name, "output_names": self.output_names,
                       "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update from dicts name -> NDArray (selected by ``output_names``/``label_names``)."""
        pred = [pred[n] for n in self.output_names] if self.output_names is not None else list(pred.values())
        label = [label[n] for n in self.label_names] if self.label_names is not None else list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        raise NotImplementedError()

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value, n):
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += n
        self.global_num_inst += n

    def get(self):
        """``(name, value)``; value is NaN before any update."""
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, float(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, float(self.global_sum_metric / self.global_num_inst))

    def get_name_value(self):
        """``[(name, value), ...]``."""
        name, value = self.get()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))

    def get_global_name_value(self):
        name, value = self.get_global()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))


@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns lists of names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, output_names=output_names, label_names=label_names)

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            raise ValueError(f"Metric index {index} is out of range 0 and {len(self.metrics)}") from None

    def update_dict(self, labels, preds):
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            if isinstance(name, str):
                name, value = [name], [value]
            names.extend(name)
            values.extend(value)
        return names, values

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())


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
            self._stats = _BinaryStats()
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
            probs = numpy.take_along_axis(numpy.moveaxis(pred, self.axis, -1).reshape(-1, pred.shape[self.axis]),
                                          label[:, None], axis=-1)[:, 0]
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


class CustomMetric(EvalMetric):
    """A metric from ``feval(label, pred)`` on NumPy arrays, returning a value or ``(sum, count)``."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = getattr(feval, "__name__", "custom")
            if name.find("<") != -1:
                name = f"custom({name})"
        super().__init__(name, output_names=output_names, label_names=label_names)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            reval = self._feval(_host(label), _host(pred))
            if isinstance(reval, tuple):
                self._add(reval[0], reval[1])
            elif isinstance(reval, numbers.Number) or numpy.ndim(reval) == 0:
                self._add(float(reval), 1)
            else:
                raise TypeError(f"{self.name}: feval must return a number or (sum, count), got {type(reval)}")


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A ``CustomMetric`` from a function of NumPy arrays (MXNet's ``mx.metric.np``)."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
