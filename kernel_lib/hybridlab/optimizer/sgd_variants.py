"""SGD relatives from MXNet 1.9.1: ``Signum`` (sign of the momentum), ``LARS`` (layer-wise adaptive
rate), ``DCASGD`` (delay-compensated) and ``SGLD`` (Langevin dynamics), with MXNet's defaults and
update rules.

Example::

    >>> import hybridlab as mx
    >>> opt = mx.optimizer.create('signum', learning_rate=0.1)
    >>> w, g = mx.nd.array([1.0, 1.0]), mx.nd.array([3.0, -0.5])
    >>> opt.update(0, w, g, opt.create_state(0, w))
    >>> w.asnumpy().tolist()                   # each weight moves by lr against the sign
    [0.8999999761581421, 1.100000023841858]
"""
import math

import numpy as np

from ..ops.context import get_rng
from .optimizer import Optimizer, register

__all__ = ["Signum", "LARS", "DCASGD", "SGLD"]


@register
class Signum(Optimizer):
    """Signum (Bernstein et al., 2018), MXNet's ``signum_update`` / ``signsgd_update``::

        state = momentum * state + (1 - momentum) * (clip(grad * rescale_grad, clip_gradient) + wd * weight)
        weight = (1 - lr * wd_lh) * weight - lr * sign(state)
        without momentum:  weight = (1 - lr * wd) * weight - lr * sign(grad)

    (MXNet keeps the negated state; the weights are the same.)
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum, self.wd_lh = momentum, wd_lh

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    def _step(self, xp, w, g, mom, lr, wd, t):
        if mom is None:
            if wd:
                w *= 1 - lr * wd
            w -= lr * xp.sign(g)
            return
        mom *= self.momentum
        mom -= (1 - self.momentum) * (wd * w + g)
        if self.wd_lh:
            w *= 1 - lr * self.wd_lh
        w += lr * xp.sign(mom)


@register
class LARS(Optimizer):
    """LARS (You et al., 2017): SGD with momentum whose rate is scaled per layer::

        lr_layer = lr * eta * ||w|| / (||grad * rescale_grad|| + wd * ||w|| + eps)   (both norms > 0)
        then SGD's update with lr_layer; parameters named ``*gamma``, ``*beta``, ``*bias`` (by
        ``param_idx2name``) keep lr. With ``momentum_correction`` the momentum is scaled by
        ``lr_now / lr_before`` when the scheduler changes the rate.
    """
    _master_last = True     # multi-precision state (momentum, master copy), as MXNet's

    def __init__(self, learning_rate=None, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum, self.lazy_update, self.eta, self.eps = momentum, lazy_update, eta, eps
        self.momentum_correction = momentum_correction
        self.last_lr = self.cur_lr = None

    def set_wd_mult(self, args_wd_mult):
        """As MXNet's LARS: names not ending in ``_weight`` get no weight decay."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not str(n).endswith("_weight")}
        self.wd_mult.update(args_wd_mult)

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, indices, weights, grads, states):
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        self.cur_lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.last_lr is None:
            self.last_lr = self.cur_lr
        super().update(indices, weights, grads, states)

    def _lars_lr(self, index, w, g_raw, lr, wd):
        name = str(self.idx2name.get(index, index))
        if name.endswith("gamma") or name.endswith("beta") or name.endswith("bias"):
            return lr
        w_norm = float(np.sqrt(float((w.astype(np.float32) ** 2).sum())))
        g_norm = float(np.sqrt(float((g_raw.astype(np.float32) ** 2).sum()))) * self.rescale_grad
        if w_norm > 0.0 and g_norm > 0.0:
            return lr * self.eta * w_norm / (g_norm + wd * w_norm + self.eps)
        return lr

    def _momentum(self):
        if self.momentum_correction and self.last_lr:
            return self.momentum * (self.cur_lr / self.last_lr)
        return self.momentum

    def _step_index(self, index, weight, raw_g, xp, w, g, mom, lr, wd, t):
        lr = self._lars_lr(index, w, raw_g, lr, wd)
        g += wd * w
        if mom is None:
            w -= lr * g
            return
        mom *= self._momentum()
        mom -= lr * g
        w += mom


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (Zheng et al., 2016)::

        grad = clip(grad * rescale_grad, clip_gradient)
        step = -lr * (grad + wd * weight + lamda * grad**2 * (weight - previous_weight))
        mom = momentum * mom + step   (mom = step without momentum)
        previous_weight = weight;  weight += mom
    """

    def __init__(self, learning_rate=None, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum, self.lamda = momentum, lamda

    def create_state(self, index, weight):
        mom = self._zeros_like(weight) if self.momentum != 0.0 else None
        return (mom, weight.copy())

    def _step(self, xp, w, g, state, lr, wd, t):
        mom, prev = state
        step = -lr * (g + wd * w + self.lamda * g * g * (w - prev))
        if mom is not None:
            mom *= self.momentum
            mom += step
            step = mom
        prev[...] = w
        w += step


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics::

        grad = clip(grad * rescale_grad, clip_gradient)
        weight += -lr / 2 * (grad + wd * weight) + normal(0, sqrt(lr))

    The noise comes from the weight device's generator (``mx.random.seed`` makes it reproducible).
    """

    def __init__(self, learning_rate=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _step_index(self, index, weight, raw_g, xp, w, g, state, lr, wd, t):
        w -= lr / 2 * (g + wd * w)
        noise = get_rng(weight.device).normal(0.0, math.sqrt(lr), size=w.shape)
        w += xp.asarray(noise, dtype=w.dtype)
