"""The metric base classes and the registry behind ``metric.create``: ``EvalMetric`` (local and
global sums), ``CompositeEvalMetric``, ``CustomMetric`` and ``np`` (metrics from functions)."""
import json
import numbers

import numpy

from ...ndarray.ndarray import NDArray

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
    ``CustomMetric``), a list of those (a ``CompositeEvalMetric``), a metric (returned as is), or a
    configuration from ``get_config()``: a dict, its JSON text, or JSON ``[name, kwargs]`` (as MXNet's
    registry reads them).

    Example::

        >>> import json
        >>> import hybridlab as mx
        >>> config = json.dumps(mx.metric.create('acc', axis=0).get_config())
        >>> mx.metric.create(config).axis
        0
        >>> [m.name for m in mx.metric.create(['acc', 'pcc']).metrics]
        ['accuracy', 'pcc']
    """
    if callable(metric) and not isinstance(metric, type):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, dict):
        return _from_config(metric, args, kwargs, metric)
    if isinstance(metric, str) and metric[:1] in ("[", "{"):
        try:
            config = json.loads(metric)
        except ValueError as e:
            raise ValueError(f"Metric configuration: expected JSON text, got {metric[:80]!r} ({e})") from None
        if metric[0] == "[":
            if not (isinstance(config, list) and len(config) == 2 and isinstance(config[0], str)
                    and isinstance(config[1], dict)):
                raise ValueError(f"Metric configuration: expected JSON [name, {{arguments}}], got {metric[:80]!r}")
            config = dict(config[1], metric=config[0])
        elif not isinstance(config, dict):
            raise ValueError(f"Metric configuration: expected a JSON object, got {metric[:80]!r}")
        return _from_config(config, args, kwargs, metric)
    if not isinstance(metric, str) or metric.lower() not in _REGISTRY:
        raise ValueError(f"Metric must be either callable or in {sorted(_REGISTRY)}, got {metric!r}")
    return _REGISTRY[metric.lower()](*args, **kwargs)


def _from_config(config, args, kwargs, given):
    if args or kwargs:
        raise ValueError(f"Metric configuration {given!r}: expected no further arguments, got {args} {kwargs}")
    config = dict(config)
    name = config.pop("metric", None)
    if not isinstance(name, str):
        raise ValueError(f"Metric configuration: expected a 'metric' name, got {given!r}")
    return create(name, **config)


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

    def get_config(self):
        """The composite's arguments, its metrics' configurations under ``'metrics'``."""
        config = super().get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config

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

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")

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
