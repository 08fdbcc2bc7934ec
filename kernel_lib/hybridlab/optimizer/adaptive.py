"""Per-coordinate adaptive rates: ``RMSProp`` (Tieleman & Hinton, or Graves's centered version),
``AdaGrad``, ``AdaDelta`` and ``Ftrl``, with MXNet 1.9.1's update rules and defaults (MXNet 2.0's
argument names ``rho``/``momentum`` for RMSProp and ``epsilon`` for AdaGrad are accepted too).

Example::

    >>> import hybridlab as mx
    >>> opt = mx.optimizer.create('adagrad', learning_rate=0.5)
    >>> w, g = mx.nd.array([1.0]), mx.nd.array([2.0])
    >>> opt.update(0, w, g, opt.create_state(0, w))
    >>> round(float(w.asscalar()), 4)          # 1 - 0.5 * 2 / sqrt(4 + 1e-7)
    0.5
"""
import numpy as np

from .optimizer import Optimizer, register

__all__ = ["RMSProp", "AdaGrad", "AdaDelta", "Ftrl"]


@register
class RMSProp(Optimizer):
    """RMSProp (MXNet 1.9.1's ``rmsprop_update`` / ``rmspropalex_update``)::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        n = gamma1 * n + (1 - gamma1) * grad**2
        weight -= lr * grad / sqrt(n + epsilon)                        (centered=False)
        g = gamma1 * g + (1 - gamma1) * grad                           (centered=True)
        delta = gamma2 * delta - lr * grad / sqrt(n - g**2 + epsilon);  weight += delta
    then ``clip_weights`` clips the weight. ``rho``/``momentum`` are MXNet 2.0's names of gamma1/gamma2.
    """
    _wd_before_clip = True

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8, centered=False,
                 clip_weights=None, rho=None, momentum=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1 if rho is None else rho
        self.gamma2 = gamma2 if momentum is None else momentum
        self.epsilon, self.centered, self.clip_weights = epsilon, centered, clip_weights

    rho = property(lambda self: self.gamma1, lambda self, v: setattr(self, "gamma1", v))
    momentum = property(lambda self: self.gamma2, lambda self, v: setattr(self, "gamma2", v))

    def create_state(self, index, weight):
        if self.centered:
            return (self._zeros_like(weight), self._zeros_like(weight), self._zeros_like(weight))
        return (self._zeros_like(weight),)

    def _step(self, xp, w, g, state, lr, wd, t):
        gamma1 = self.gamma1
        n = state[0]
        n *= gamma1
        n += (1 - gamma1) * g * g
        if not self.centered:
            w -= lr * g / xp.sqrt(n + self.epsilon)
        else:
            _, mean, delta = state
            mean *= gamma1
            mean += (1 - gamma1) * g
            delta *= self.gamma2
            delta -= lr * g / xp.sqrt(n - mean * mean + self.epsilon)
            w += delta
        if self.clip_weights:
            xp.clip(w, -self.clip_weights, self.clip_weights, out=w)


@register
class AdaGrad(Optimizer):
    """AdaGrad (MXNet 1.9.1)::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += grad**2
        weight -= lr * (grad / sqrt(history + eps) + wd * weight)

    ``eps`` (default 1e-7) is also accepted as ``epsilon`` (MXNet 2.0's name); both attributes read it.
    """

    def __init__(self, learning_rate=None, eps=1e-7, epsilon=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.float_stable_eps = eps if epsilon is None else epsilon

    epsilon = property(lambda self: self.float_stable_eps, lambda self, v: setattr(self, "float_stable_eps", v))

    def create_state(self, index, weight):
        return self._zeros_like(weight)

    def _step(self, xp, w, g, history, lr, wd, t):
        history += g * g
        w -= lr * (g / xp.sqrt(history + self.float_stable_eps) + wd * w)


@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler, 2012), as MXNet 1.9.1: the learning rate is not used::

        grad = clip(grad * rescale_grad, clip_gradient)
        acc_g = rho * acc_g + (1 - rho) * grad**2
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * grad
        acc_delta = rho * acc_delta + (1 - rho) * delta**2
        weight -= delta + wd * weight
    """

    def __init__(self, learning_rate=None, rho=0.9, epsilon=1e-5, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def _step(self, xp, w, g, state, lr, wd, t):
        acc_g, acc_delta = state
        acc_g *= self.rho
        acc_g += (1 - self.rho) * g * g
        delta = xp.sqrt(acc_delta + self.epsilon) / xp.sqrt(acc_g + self.epsilon) * g
        acc_delta *= self.rho
        acc_delta += (1 - self.rho) * delta * delta
        w -= delta + wd * w


@register
class Ftrl(Optimizer):
    """FTRL-Proximal (McMahan et al., 2013), MXNet's ``ftrl_update``::

        grad = clip(grad * rescale_grad, clip_gradient)
        z += grad - (sqrt(n + grad**2) - sqrt(n)) * weight / lr
        n += grad**2
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (abs(z) > lamda1)

    A row_sparse gradient updates only its rows (MXNet's sparse ``ftrl_update`` is always lazy).
    """

    lazy_update = True

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.lamda1, self.beta = lamda1, beta

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))   # z, n

    def _step(self, xp, w, g, state, lr, wd, t):
        z, n = state
        z += g - (xp.sqrt(n + g * g) - xp.sqrt(n)) * w / lr
        n += g * g
        w[...] = (xp.sign(z) * self.lamda1 - z) / ((self.beta + xp.sqrt(n)) / lr + wd) * (xp.abs(z) > self.lamda1)
