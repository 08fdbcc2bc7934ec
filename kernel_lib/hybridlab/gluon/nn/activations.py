"""Activation layers: ``Activation`` (relu, sigmoid, tanh, softrelu, softsign), ``LeakyReLU``,
``PReLU`` (a learned slope ``alpha``), ``ELU``, ``SELU``, ``GELU``, ``Swish`` and ``SiLU``
(MXNet 1.9's ``gluon.nn.activations``).

Example::

    >>> import hybridlab as mx
    >>> act = mx.gluon.nn.Activation('relu')
    >>> act
    Activation(relu)
    >>> act(mx.nd.array([-1.0, 2.0])).asnumpy().tolist()
    [0.0, 2.0]
    >>> mx.gluon.nn.ELU()(mx.nd.array([0.0, 2.0])).asnumpy().tolist()
    [0.0, 2.0]
"""
from ... import initializer
from ..hybrid_block import HybridBlock

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish", "SiLU"]


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


class PReLU(HybridBlock):
    """Parametric ReLU: ``x`` where positive, ``alpha * x`` elsewhere, with a learned ``alpha`` of shape
    ``(in_channels,)`` (one slope per channel on axis 1, or one shared when ``in_channels=1``)."""

    def __init__(self, alpha_initializer=None, in_channels=1, **kwargs):
        super().__init__(**kwargs)
        if alpha_initializer is None:
            alpha_initializer = initializer.Constant(0.25)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type="prelu", name="fwd")

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ELU(HybridBlock):
    """Exponential linear unit: ``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._alpha})"


class SELU(HybridBlock):
    """Scaled ELU with the fixed constants of Klambauer et al. (``lambda`` 1.0507, ``alpha`` 1.6733)."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")

    def __repr__(self):
        return self.__class__.__name__


class GELU(HybridBlock):
    """Gaussian error linear unit ``x * Phi(x)`` (the erf form)."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")

    def __repr__(self):
        return self.__class__.__name__


class Swish(HybridBlock):
    """``x * sigmoid(beta * x)``."""

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")

    def __repr__(self):
        return f"{self.__class__.__name__}({self._beta})"


class SiLU(HybridBlock):
    """Sigmoid linear unit ``x * sigmoid(x)`` (Swish with ``beta = 1``)."""

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(x, name="fwd")

    def __repr__(self):
        return self.__class__.__name__
