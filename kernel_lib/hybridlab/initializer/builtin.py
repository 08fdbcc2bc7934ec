"""The built-in initializers: constants (Zero, One, Constant), random draws (Uniform, Normal,
Orthogonal, Xavier, MSRAPrelu) and structured fills (Bilinear upsampling kernels, LSTMBias)."""
import numpy as np

from .base import Initializer, _fill, _normal, _uniform, alias, register

__all__ = ["Zero", "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu", "Bilinear",
           "LSTMBias"]


@alias("zeros")
class Zero(Initializer):
    """Fills with 0 (also registered as 'zeros')."""

    def _init_weight(self, _, arr):
        _fill(arr, 0)


@alias("ones")
class One(Initializer):
    """Fills with 1 (also registered as 'ones')."""

    def _init_weight(self, _, arr):
        _fill(arr, 1)


@register
class Constant(Initializer):
    """Fills with ``value`` (a number or an array broadcastable to the parameter's shape)."""

    def __init__(self, value):
        from ..ndarray.ndarray import NDArray
        stored = value.asnumpy().tolist() if isinstance(value, NDArray) else value
        super().__init__(value=stored.tolist() if isinstance(stored, np.ndarray) else stored)
        self.value = value

    def _init_weight(self, _, arr):
        _fill(arr, np.broadcast_to(np.asarray(self.value.asnumpy() if hasattr(self.value, "asnumpy")
                                              else self.value), arr.shape))


@register
class Uniform(Initializer):
    """Uniform samples in ``[-scale, scale)``.

    >>> import hybridlab as mx
    >>> w = mx.nd.zeros((100,)); mx.init.Uniform(0.1)._init_weight('w', w)
    >>> bool((abs(w.asnumpy()) <= 0.1).all())
    True
    """

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _fill(arr, _uniform(-self.scale, self.scale, arr))


@register
class Normal(Initializer):
    """Normal samples with mean 0 and standard deviation ``sigma``."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _fill(arr, _normal(0, self.sigma, arr))


@register
class Orthogonal(Initializer):
    """An orthogonal matrix (from the SVD of a random one) times ``scale`` (Saxe et al. 2013)."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        from ..ndarray import random as _random
        nout, nin = arr.shape[0], int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = _random.uniform(-1.0, 1.0, shape=(nout, nin)).asnumpy()
        elif self.rand_type == "normal":
            tmp = _random.normal(0.0, 1.0, shape=(nout, nin)).asnumpy()
        else:
            raise ValueError(f"Unknown rand_type {self.rand_type!r}: expected 'uniform' or 'normal'")
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        _fill(arr, self.scale * res.reshape(arr.shape))


@register
class Xavier(Initializer):
    """Xavier/Glorot: samples scaled by ``sqrt(magnitude / factor)``, where the factor is the
    fan-in, fan-out or their average (``factor_type``); ``rnd_type`` is 'uniform' or 'gaussian'."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError(f"Xavier initializer cannot be applied to vector {name}. It requires at least 2D.")
        hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        factors = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}
        if self.factor_type not in factors:
            raise ValueError(f"Incorrect factor type {self.factor_type!r}: expected 'avg', 'in' or 'out'")
        scale = np.sqrt(self.magnitude / factors[self.factor_type])
        if self.rnd_type == "uniform":
            _fill(arr, _uniform(-scale, scale, arr))
        elif self.rnd_type == "gaussian":
            _fill(arr, _normal(0, scale, arr))
        else:
            raise ValueError(f"Unknown random type {self.rnd_type!r}: expected 'uniform' or 'gaussian'")


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialisation for PReLU nets: Gaussian Xavier with magnitude ``2 / (1 + slope**2)``."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear-interpolation kernels for upsampling (``Conv2DTranspose``) weights of shape
    ``(C_out, C_in, kh, kw)``, as MXNet: ``(1 - |x / f - c|) * (1 - |y / f - c|)`` with
    ``f = ceil(kw / 2)``, ``c = (2f - 1 - f % 2) / (2f)``.

    >>> import hybridlab as mx
    >>> w = mx.nd.zeros((1, 1, 4, 4))
    >>> mx.init.Bilinear()('up_weight', w)
    >>> w[0, 0, 0].asnumpy().tolist()
    [0.0625, 0.1875, 0.1875, 0.0625]
    """

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        shape = arr.shape
        f = np.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        x = np.arange(shape[3])
        y = np.arange(shape[2])
        kernel = np.outer(1 - np.abs(y / f - c), 1 - np.abs(x / f - c)).astype(np.float32)
        _fill(arr, np.broadcast_to(kernel, shape))


@register
class LSTMBias(Initializer):
    """LSTM biases: 0 except the forget gate (the second of the 4 gates), set to ``forget_bias``.
    Give it as a bias initializer (``i2h_bias_initializer=mx.init.LSTMBias(1.0)``).

    >>> import hybridlab as mx
    >>> b = mx.nd.zeros((8,))
    >>> mx.init.LSTMBias(forget_bias=1.0)._init_weight('lstm_i2h_bias', b)
    >>> b.asnumpy().tolist()
    [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        value = np.zeros(arr.shape, dtype=np.float32)
        num_hidden = int(arr.shape[0] / 4)
        value[num_hidden:2 * num_hidden] = self.forget_bias
        _fill(arr, value)
