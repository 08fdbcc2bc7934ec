"""Per-coordinate adaptive rates: ``RMSProp`` (Tieleman & Hinton, or Graves's centered version),
``AdaGrad`` and ``AdaDelta``, with MXNet 2.0's update rules and defaults (1.x argument names
``gamma1``/``gamma2`` for RMSProp and ``eps`` for AdaGrad are accepted too).

Example::

    >>> import hybridlab as mx
    >>> opt = mx.optimizer.create('adagrad', learning_rate=0.5)
    >>> w, g = mx.nd.array([1.0]), mx.nd.array([2.0])
    >>> opt.update(0, w, g, opt.create_state(0, w))
    >>> round(float(w.asscalar()), 4)          # 1 - 0.5 * 2 / (sqrt(4) + 1e-6)
    0.5
"""
from .optimizer import Optimizer, register

__all__ = ["RMSProp", "AdaGrad", "AdaDelta"]


@register
class RMSProp(Optimizer):
    """RMSProp::

        grad = clip(grad * rescale_grad, clip_gradient) + wd * weight
        var = rho * var + (1 - rho) * grad**2
        weight -= lr * grad / (sqrt(var) + epsilon)                    (centered=False)
        mean = rho * mean + (1 - rho) * grad                           (centered=True)
        mom = momentum * mom - lr * grad / sqrt(var - mean**2 + epsilon);  weight += mom
    then ``clip_weights`` clips the weight.
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.9, epsilon=1e-8, centered=False,
                 clip_weights=None, gamma1=None, gamma2=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = rho if gamma1 is None else gamma1
        self.momentum = momentum if gamma2 is None else gamma2
        self.epsilon, self.centered, self.clip_weights = epsilon, centered, clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (self._zeros_like(weight), self._zeros_like(weight), self._zeros_like(weight))
        return self._zeros_like(weight)

    def _step(self, xp, w, g, state, lr, wd, t):
        if wd:
            g += wd * w
        rho = self.rho
        if not self.centered:
            var = state
            var *= rho
            var += (1 - rho) * g * g
            w -= lr * g / (xp.sqrt(var) + self.epsilon)
        else:
            mean, var, mom = state
            mean *= rho
            mean += (1 - rho) * g
            var *= rho
            var += (1 - rho) * g * g
            mom *= self.momentum
            mom -= lr * g / xp.sqrt(var - mean * mean + self.epsilon)
            w += mom
        if self.clip_weights:
            xp.clip(w, -self.clip_weights, self.clip_weights, out=w)


@register
class AdaGrad(Optimizer):
    """AdaGrad::

        grad = clip(grad * rescale_grad, clip_gradient) + wd * weight
        history += grad**2
        weight -= lr * grad / (sqrt(history) + epsilon)
    """

    def __init__(self, learning_rate=0.01, epsilon=1e-6, eps=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.epsilon = epsilon if eps is None else eps

    def create_state(self, index, weight):
        return self._zeros_like(weight)

    def _step(self, xp, w, g, history, lr, wd, t):
        if wd:
            g += wd * w
        history += g * g
        w -= lr * g / (xp.sqrt(history) + self.epsilon)


@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler, 2012)::

        grad = clip(grad * rescale_grad, clip_gradient) + wd * weight
        acc_g = rho * acc_g + (1 - rho) * grad**2
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * grad
        acc_delta = rho * acc_delta + (1 - rho) * delta**2
        weight -= lr * delta
    """

    def __init__(self, learning_rate=1.0, rho=0.9, epsilon=1e-6, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def _step(self, xp, w, g, state, lr, wd, t):
        if wd:
            g += wd * w
        acc_g, acc_delta = state
        acc_g *= self.rho
        acc_g += (1 - self.rho) * g * g
        delta = xp.sqrt(acc_delta + self.epsilon) / xp.sqrt(acc_g + self.epsilon) * g
        acc_delta *= self.rho
        acc_delta += (1 - self.rho) * delta * delta
        w -= lr * delta
