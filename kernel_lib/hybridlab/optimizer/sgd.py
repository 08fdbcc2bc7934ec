"""Momentum methods: ``SGD`` (with optional momentum) and ``NAG`` (Nesterov), with MXNet 1.9.1's
defaults (``learning_rate`` 0.01, ``momentum`` 0) and its ``sgd_mom_update``/``nag_mom_update`` rules.

Example::

    >>> import hybridlab as mx
    >>> mx.optimizer.SGD().learning_rate, mx.optimizer.NAG().momentum      # MXNet 1.x defaults
    (0.01, 0.0)
    >>> opt = mx.optimizer.SGD(learning_rate=0.5, momentum=0.9)
    >>> w, g = mx.nd.array([1.0]), mx.nd.array([1.0])
    >>> state = opt.create_state(0, w)
    >>> for _ in range(2):
    ...     opt.update(0, w, g, state)
    >>> round(float(w.asscalar()), 4)          # 1 - 0.5 - (0.9 * 0.5 + 0.5)
    -0.45
"""
from ..ops.blas_level1 import axpy, scal, usable
from .optimizer import Optimizer, register

__all__ = ["SGD", "NAG"]


@register
class SGD(Optimizer):
    """Stochastic gradient descent with momentum and weight decay::

        grad = clip(grad * rescale_grad, clip_gradient) + wd * weight
        state = momentum * state - lr * grad        (state = -lr * grad without momentum)
        weight = weight + state
    """
    _master_last = True     # multi-precision state (momentum, master copy), as MXNet's

    def __init__(self, learning_rate=None, momentum=0.0, lazy_update=True, multi_precision=False, **kwargs):
        super().__init__(learning_rate=learning_rate, multi_precision=multi_precision, **kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    def _step_raw(self, xp, w, g, mom, lr, wd, t, scratch=None):
        """MXNet's ``sgd_update`` / ``sgd_mom_update`` from the raw gradient, in its order of operations:
        ``w = (1 - lr * wd) * w - (lr * rescale_grad) * g``, or
        ``mom = momentum * mom - (lr * wd) * w - (lr * rescale_grad) * g; w += mom``; large arrays
        through BLAS's ``scal`` and ``axpy`` (``ops.blas_level1``: a pass over memory fewer per term)."""
        if mom is None and usable(w, g):
            if wd:
                scal(1 - lr * wd, w)
            axpy(-(lr * self.rescale_grad), g, w)
            return True
        if mom is not None and usable(w, g, mom):
            scal(self.momentum, mom)
            if wd:
                axpy(-(lr * wd), w, mom)
            axpy(-(lr * self.rescale_grad), g, mom)
            w += mom
            return True
        scaled = xp.multiply(g, lr * self.rescale_grad, out=scratch)
        if mom is None:
            if wd:
                w *= 1 - lr * wd
            w -= scaled
            return True
        mom *= self.momentum
        if wd:
            mom -= (lr * wd) * w
        mom -= scaled
        w += mom
        return True

    def _step(self, xp, w, g, mom, lr, wd, t):
        if wd:
            g += wd * w
        if mom is None:
            w -= lr * g
            return
        mom *= self.momentum
        mom -= lr * g
        w += mom


@register
class NAG(SGD):
    """Nesterov accelerated gradient (MXNet 1.9.1's ``nag_mom_update``)::

        grad = clip(grad * rescale_grad, clip_gradient)
        state = momentum * state
        weight = weight - state + (momentum + 1) * (state - lr * (grad + wd * weight))
        state = state - lr * (grad + wd * weight)      (wd on the *updated* weight, as MXNet's kernel)

    which is ``weight += momentum * state' - lr * (grad + wd * weight)`` with the new state ``state'``.
    Without momentum (the default) it is plain ``sgd_update``.
    """

    def __init__(self, learning_rate=None, momentum=0.0, multi_precision=False, **kwargs):
        super().__init__(learning_rate=learning_rate, momentum=momentum, multi_precision=multi_precision, **kwargs)

    def _step_raw(self, xp, w, g, mom, lr, wd, t, scratch=None):
        return mom is None and super()._step_raw(xp, w, g, mom, lr, wd, t, scratch)     # with momentum: ``_step``

    def _step(self, xp, w, g, mom, lr, wd, t):
        if mom is None:
            super()._step(xp, w, g, mom, lr, wd, t)
            return
        mom *= self.momentum
        w += (self.momentum + 1) * (mom - lr * (g + wd * w)) - mom
        mom -= lr * (g + wd * w)      # MXNet's kernel writes the weight first, then reads it here
