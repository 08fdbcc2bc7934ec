"""Adam-family optimizers: ``Adam``, ``Adamax``, ``Nadam``, ``FTML``, ``LAMB`` (layer-wise trust
ratio), with MXNet 1.9.1's update rules and defaults, and ``AdamW`` (decoupled weight decay, MXNet 2.0).

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

from ..ops.blas_level1 import axpy, scal, usable
from .optimizer import Optimizer, register

__all__ = ["Adam", "AdamW", "LAMB", "Adamax", "Nadam", "FTML"]


def _moments(m, v, g, beta1, beta2):
    m *= beta1
    m += (1.0 - beta1) * g
    v *= beta2
    v += (1.0 - beta2) * g * g


@register
class Adam(Optimizer):
    """Adam::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad;  v = beta2 * v + (1 - beta2) * grad**2
        weight -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + epsilon)
    """
    _wd_before_clip = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=True, **kwargs):
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

    def _step_raw(self, xp, w, g, state, lr, wd, t, scratch=None):
        """``_step`` with ``rescale_grad`` folded into the moments' factors and one scratch array for
        every temporary (the passes of a hand-written NumPy Adam)."""
        if wd:
            return False
        b1, b2, r = self.beta1, self.beta2, self.rescale_grad
        lr *= math.sqrt(1.0 - b2 ** t) / (1.0 - b1 ** t)
        m, v = state
        if usable(w, g, m, v) and (scratch is None or usable(g, scratch)):    # (BLAS: a pass fewer per term)
            scal(b1, m)
            axpy((1.0 - b1) * r, g, m)
            s = xp.multiply(g, g, out=scratch)
            scal(b2, v)
            axpy((1.0 - b2) * r * r, s, v)
            xp.sqrt(v, out=s)
            s += self.epsilon
            xp.divide(m, s, out=s)
            axpy(-lr, s, w)
            return True
        s = xp.multiply(g, (1.0 - b1) * r, out=scratch)
        m *= b1
        m += s
        xp.multiply(g, g, out=s)
        s *= (1.0 - b2) * r * r
        v *= b2
        v += s
        xp.sqrt(v, out=s)
        s += self.epsilon
        xp.divide(m, s, out=s)
        s *= lr
        w -= s
        return True


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


@register
class Adamax(Optimizer):
    """AdaMax (Adam with the infinity norm, Kingma & Ba section 7)::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad;  u = maximum(beta2 * u, abs(grad))
        weight -= lr / (1 - beta1**t) * m / u
    """
    _wd_before_clip = True

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2 = beta1, beta2

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def _step(self, xp, w, g, state, lr, wd, t):
        m, u = state
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        xp.maximum(self.beta2 * u, xp.abs(g), out=u)
        w -= lr / (1.0 - self.beta1 ** t) * m / u


@register
class Nadam(Optimizer):
    """Nesterov Adam (Dozat, 2016)::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        mu_t = beta1 * (1 - 0.5 * 0.96**(t * schedule_decay));  mu_t1 the same at t + 1
        m_schedule *= mu_t            (one product for the optimizer, as in MXNet)
        m = beta1 * m + (1 - beta1) * grad;  v = beta2 * v + (1 - beta2) * grad**2
        m_bar = (1 - mu_t) * grad / (1 - m_schedule) + mu_t1 * m / (1 - m_schedule * mu_t1)
        weight -= lr * m_bar / (sqrt(v / (1 - beta2**t)) + epsilon)
    """
    _wd_before_clip = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon, self.schedule_decay = beta1, beta2, epsilon, schedule_decay
        self.m_schedule = 1.0

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def _step(self, xp, w, g, state, lr, wd, t):
        mu_t = self.beta1 * (1.0 - 0.5 * 0.96 ** (t * self.schedule_decay))
        mu_t1 = self.beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * mu_t
        m_schedule_next = self.m_schedule * mu_t1
        m, v = state
        _moments(m, v, g, self.beta1, self.beta2)
        m_bar = (1.0 - mu_t) * (g / (1.0 - self.m_schedule)) + mu_t1 * (m / (1.0 - m_schedule_next))
        w -= lr * m_bar / (xp.sqrt(v / (1.0 - self.beta2 ** t)) + self.epsilon)


@register
class FTML(Optimizer):
    """FTML, Follow the Moving Leader (Zheng & Kwok, 2017), MXNet's ``ftml_update``::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        v = beta2 * v + (1 - beta2) * grad**2
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * grad - (d_t - beta1 * d_(t-1)) * weight
        weight = -z / d_t
    """
    _wd_before_clip = True

    def __init__(self, learning_rate=None, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight), self._zeros_like(weight))   # d, v, z

    def _step(self, xp, w, g, state, lr, wd, t):
        d, v, z = state
        v *= self.beta2
        v += (1.0 - self.beta2) * g * g
        d_t = (1.0 - self.beta1 ** t) / lr * (xp.sqrt(v / (1.0 - self.beta2 ** t)) + self.epsilon)
        z *= self.beta1
        z += (1.0 - self.beta1) * g - (d_t - self.beta1 * d) * w
        d[...] = d_t
        w[...] = -z / d_t
