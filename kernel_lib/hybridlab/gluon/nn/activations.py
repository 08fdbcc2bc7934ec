"""Activation layers: ``Activation`` (relu, sigmoid, tanh, softrelu, softsign) and ``LeakyReLU``.

Example::

    >>> import hybridlab as mx
    >>> act = mx.gluon.nn.Activation('relu')
    >>> act
    Activation(relu)
    >>> act(mx.nd.array([-1.0, 2.0])).asnumpy().tolist()
    [0.0, 2.0]
"""
from ..hybrid_block import HybridBlock

__all__ = ["Activation", "LeakyReLU"]


class Activation(HybridBlock):
    """Applies the activation ``activation`` ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign');
    its graph node is ``<prefix>fwd`` (e.g. ``dense0_relu_fwd`` inside a Dense)."""

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return f"{self.__class__.__name__}({self._act_type})"


class LeakyReLU(HybridBlock):
    """``x`` where positive, ``alpha * x`` elsewhere."""

    def __init__(self, alpha, **kwargs):
        if alpha < 0:
            raise AssertionError("Slope coefficient for LeakyReLU must be no less than 0.")
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self):
        return f"{self.__class__.__name__}({self._alpha})"
