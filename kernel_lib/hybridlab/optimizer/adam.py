"""Adam-family optimizers: ``Adam``, ``AdamW`` (decoupled weight decay) and ``LAMB`` (layer-wise
trust ratio), with MXNet 2.0's update rules and defaults.

Example::

    >>> import hybridlab as mx
    >>> opt = mx.optimizer.create('adam', learning_rate=0.1)
    >>> w, g = mx.nd.array([1.0]), mx.nd.array([3.0])
    >>> opt.update(0, w, g, opt.create_state(0, w))
    >>> round(float(w.asscalar()), 4)          # the first Adam step moves by lr
    0.9
"""
import math

import numpy as np

from .optimizer import Optimizer, register

__all__ = ["Adam", "AdamW", "LAMB"]


def _moments(m, v, g, beta1, beta2):
    m *= beta1
    m += (1.0 - beta1) * g
    v *= beta2
    v += (1.0 - beta2) * g * g


@register
class Adam(Optimizer):
    """Adam::

        grad = clip(grad * rescale_grad, clip_gradient) + wd * weight
        m = beta1 * m + (1 - beta1) * grad;  v = beta2 * v + (1 - beta2) * grad**2
        weight -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + epsilon)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon, self.lazy_update = beta1, beta2, epsilon, lazy_update

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def _step(self, xp, w, g, state, lr, wd, t):
        if wd:
            g += wd * w
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        m, v = state
        _moments(m, v, g, self.beta1, self.beta2)
        w -= lr * m / (xp.sqrt(v) + self.epsilon)


@register
class AdamW(Optimizer):
    """Adam with decoupled weight decay (Loshchilov & Hutter)::

        grad = clip(grad * rescale_grad, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad;  v = beta2 * v + (1 - beta2) * grad**2
        lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)      (lr without correct_bias)
        weight -= lr_t * (m / (sqrt(v) + epsilon) + wd * weight)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, correct_bias=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon, self.correct_bias = beta1, beta2, epsilon, correct_bias

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def _step(self, xp, w, g, state, lr, wd, t):
        if self.correct_bias:
            lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        m, v = state
        _moments(m, v, g, self.beta1, self.beta2)
        w -= lr * (m / (xp.sqrt(v) + self.epsilon) + wd * w)   # wd on the old weight, as adamw_update


@register
class LAMB(Optimizer):
    """LAMB (You et al., 2019)::

        grad = clip(grad * rescale_grad, clip_gradient)
        m, v as Adam;  g = m_hat / (sqrt(v_hat) + epsilon) + wd * weight   (hats: bias-corrected)
        r1 = clip(||weight||, lower_bound, upper_bound);  r2 = ||g||
        weight -= lr * (r1 / r2 if both are non-zero else 1) * g
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, lower_bound=None,
                 upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound, self.bias_correction = lower_bound, upper_bound, bias_correction

    def create_state(self, index, weight):
        return (self._zeros_like(weight, np.float32), self._zeros_like(weight, np.float32))

    def _step(self, xp, w, g, state, lr, wd, t):
        m, v = state
        _moments(m, v, g, self.beta1, self.beta2)
        r1 = float(xp.linalg.norm(w.astype(np.float32).ravel()))
        if self.lower_bound is not None:
            r1 = max(r1, self.lower_bound)
        if self.upper_bound is not None:
            r1 = min(r1, self.upper_bound)
        if self.bias_correction:
            step = (m / (1.0 - self.beta1 ** t)) / (xp.sqrt(v / (1.0 - self.beta2 ** t)) + self.epsilon)
        else:
            step = m / (xp.sqrt(v) + self.epsilon)
        step += wd * w
        r2 = float(xp.linalg.norm(step.ravel()))
        ratio = r1 / r2 if r1 > 0 and r2 > 0 and math.isfinite(r1 / r2) else 1.0
        w -= (lr * ratio * step).astype(w.dtype, copy=False)
