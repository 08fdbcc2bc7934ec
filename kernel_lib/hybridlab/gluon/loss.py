"""Losses (MXNet's ``gluon.loss``): HybridBlocks mapping ``(pred, label[, sample_weight])`` to one loss
per sample (the mean over every axis but ``batch_axis``), written once with ``F`` so they hybridize.

``weight`` (a number) scales the loss; ``sample_weight`` (an array broadcastable to the loss before the
mean, e.g. ``(batch, 1)``) weights elements.

Example::

    >>> import hybridlab as mx
    >>> loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    >>> pred = mx.nd.array([[0.0, 0.0], [10.0, 0.0]])
    >>> label = mx.nd.array([1, 0])
    >>> [round(v, 4) for v in loss(pred, label).asnumpy().tolist()]
    [0.6931, 0.0]
    >>> mx.gluon.loss.L2Loss()(mx.nd.array([[1.0, 3.0]]), mx.nd.array([[0.0, 0.0]])).asnumpy().tolist()
    [2.5]
"""
import numbers

import numpy as np

from .. import ndarray as _nd
from ..base import MXNetError
from .hybrid_block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "CTCLoss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss",
           "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "KLDivLoss", "HuberLoss", "HingeLoss",
           "SquaredHingeLoss", "LogisticLoss", "TripletLoss", "PoissonNLLLoss", "CosineEmbeddingLoss",
           "SDMLLoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss * sample_weight * weight`` (each when given); ``weight`` must be a number."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numbers.Number):
            raise MXNetError(f"loss weight: expected a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` reshaped to ``y``'s shape (labels given as ``(N,)`` for predictions ``(N, 1)``)."""
    if F is _nd:
        if x.size != y.size:
            raise MXNetError(f"loss: label of shape {x.shape} cannot be reshaped to the prediction's shape "
                             f"{y.shape} (expected {int(np.prod(y.shape))} elements, got {x.size})")
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class of the losses: keeps ``weight`` and ``batch_axis``."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{self.__class__.__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """``0.5 * weight * (label - pred)**2``, averaged per sample."""

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L1Loss(Loss):
    """``|label - pred|``, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


def _softrelu_neg_abs(F, x):
    """``log(1 + exp(-|x|))``, the stable part of the sigmoid cross-entropy."""
    return F.Activation(-F.abs(x), act_type="softrelu")


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy of ``sigmoid(pred)`` (or of ``pred`` itself with ``from_sigmoid=True``)
    against labels in [0, 1]; ``pos_weight`` (broadcast to the label) weights the positive term."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                # max(x, 0) - x * z + log(1 + exp(-|x|))
                loss = F.relu(pred) - pred * label + _softrelu_neg_abs(F, pred)
            else:
                # x - x * z + (1 + z * (pos_weight - 1)) * (log(1 + exp(-|x|)) + max(-x, 0))
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (_softrelu_neg_abs(F, pred) + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1.0 - pred + eps) * (1.0 - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight)
                         + F.log(1.0 - pred + eps) * (1.0 - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """``-sum(label * log_softmax(pred), axis)``; ``sparse_label`` labels are class indices, else
    distributions; ``from_logits`` means ``pred`` already holds log-probabilities."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:   # labels (N,) and (N, 1) alike, as in MXNet
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """``label * (log(label) - pred)`` with ``pred`` log-probabilities (``from_logits=True``) or
    logits turned into them by ``log_softmax`` along ``axis``, **summed** over the non-batch axes
    (as MXNet 1.9.1; the other losses average)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist Temporal Classification loss (``ctc_loss`` with the blank class last, as
    MXNet's layer): ``pred`` (N, T, C) with ``layout='NTC'`` or (T, N, C) with ``'TNC'``, ``label``
    (N, L) (``label_layout='NT'``) or (L, N) padded with -1, optional ``pred_lengths`` /
    ``label_lengths`` (N,). One loss per sample.

    >>> import hybridlab as mx
    >>> loss = mx.gluon.loss.CTCLoss()
    >>> loss(mx.nd.zeros((1, 2, 3)), mx.nd.array([[0, -1]])).shape
    (1,)
    """

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        if layout not in ("NTC", "TNC"):
            raise ValueError(f"CTCLoss: layout expected 'NTC' or 'TNC', got {layout!r}")
        if label_layout not in ("NT", "TN"):
            raise ValueError(f"CTCLoss: label_layout expected 'NT' or 'TN', got {label_layout!r}")
        self._layout, self._label_layout = layout, label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smoothed L1: ``0.5/rho * err**2`` where ``|err| <= rho``, else ``|err| - 0.5 * rho``."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho, (0.5 / self._rho) * F.square(loss))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class HingeLoss(Loss):
    """``max(0, margin - pred * label)`` for labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class SquaredHingeLoss(Loss):
    """``max(0, margin - pred * label)**2`` for labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))``; ``label_format`` 'signed' (labels -1/1) or 'binary' (0/1)."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError(f"label_format can only be signed or binary, recieved {label_format}.")
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + _softrelu_neg_abs(F, pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class TripletLoss(Loss):
    """``max(0, ||pred - positive||**2 - ||pred - negative||**2 + margin)`` per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative, sample_weight=None):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred), axis=self._batch_axis, exclude=True)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of ``target`` under a Poisson of rate ``exp(pred)`` (``from_logits``)
    or ``pred``; ``compute_full`` adds Stirling's term. Returns the mean over all elements (a scalar
    of shape (1,)), as MXNet."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            # Stirling's approximation of log(target!), where target > 1 (MXNet multiplies by the mask,
            # which turns target == 0 into NaN; clipping inside the logs keeps it 0)
            t = F.clip(target, a_min=1.0, a_max=3.4e38)
            stirling = target * F.log(t) - target + 0.5 * F.log(2 * t * np.pi)
            loss = loss + F.where(target > 1, stirling, F.zeros_like(stirling))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(input1, input2)`` where ``label == 1``, ``max(0, cos - margin)`` where
    ``label == -1``; one value per sample, shape ``(batch, 1)``."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = F.reshape(label, shape=(-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        y_1 = label == 1
        y_minus_1 = label == -1
        cos_sim_a = (1 - cos_sim) * y_1
        cos_sim_b = F.relu(y_minus_1 * (cos_sim - self._margin))
        loss = cos_sim_a + cos_sim_b
        return _apply_weighting(F, loss, self._weight, sample_weight)

    @staticmethod
    def _cosine_similarity(F, x, y, axis=-1):
        x_norm = F.reshape(F.norm(x, axis=axis), shape=(-1, 1))
        y_norm = F.reshape(F.norm(y, axis=axis), shape=(-1, 1))
        x_dot_y = F.reshape(F.sum(x * y, axis=axis), shape=(-1, 1))
        return x_dot_y / F.clip(x_norm * y_norm, a_min=1e-12, a_max=3.4e38)


class SDMLLoss(Loss):
    """Smoothed Deep Metric Learning loss (Bonadiman et al. 2019) over aligned batches ``x1``, ``x2``
    (N, D): row i of each is a positive pair, every other row a negative. With ``d`` the squared
    euclidean distances between all rows, the loss is the KL divergence (``KLDivLoss``) of
    ``log_softmax(-d)`` from the identity labels smoothed by ``smoothing_parameter``; one value per
    sample, shape (N,). Written without the batch size, so it hybridizes.

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[0.0, 1.0], [1.0, 0.0]])
    >>> mx.gluon.loss.SDMLLoss()(x, x).shape
    (2,)
    """

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def hybrid_forward(self, F, x1, x2):
        diffs = F.broadcast_sub(F.expand_dims(x1, axis=1), F.expand_dims(x2, axis=0))
        distances = F.sum(F.square(diffs), axis=2)
        rows = F.contrib.arange_like(x1, axis=0)
        gold = F.broadcast_equal(F.expand_dims(rows, axis=1), F.expand_dims(rows, axis=0))
        others = F.sum(F.ones_like(rows)) - 1          # batch size - 1, as an array (no shape read)
        s = self.smoothing_parameter
        labels = gold * (1 - s) + F.broadcast_div((1 - gold) * s, others)
        return self.kl_loss(F.log_softmax(-distances, axis=1), labels)
