"""Normalisation layers beyond BatchNorm (MXNet 1.9's ``gluon.nn``): ``LayerNorm`` (over ``axis``),
``GroupNorm`` (channels split into ``num_groups``), ``InstanceNorm`` (per sample and channel).
``gamma``/``beta`` have shape ``(in_channels,)``; ``in_channels=0`` is inferred at the first forward.
GroupNorm's are ``(num_groups,)``, one value per group, as in MXNet 1.9 (so its .params files load).

Example::

    >>> import hybridlab as mx
    >>> ln = mx.gluon.nn.LayerNorm()
    >>> ln.initialize()
    >>> ln(mx.nd.array([[1.0, 3.0]])).asnumpy().round(3).tolist()
    [[-1.0, 1.0]]
    >>> ln.gamma.shape
    (2,)
"""
from ..hybrid_block import HybridBlock
from .input_check import InputCheck, check_count, check_op_args

__all__ = ["LayerNorm", "GroupNorm", "InstanceNorm"]


class _Norm(InputCheck, HybridBlock):
    _op = ""        # the operator the layer runs (its dtype rule and attribute checks)

    def __init__(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer, in_channels, op_args=(),
                 **kwargs):
        super().__init__(**kwargs)
        check_op_args(self, self._op, [("epsilon", epsilon, "eps"), *op_args])
        if not op_args:     # GroupNorm's parameter size is num_groups, checked as an op argument
            check_count(self, "in_channels", in_channels)
        self._axis, self._epsilon, self._center, self._scale = axis, epsilon, center, scale
        with self.name_scope():
            self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(in_channels,),
                                         init=gamma_initializer, allow_deferred_init=True)
            self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(in_channels,),
                                        init=beta_initializer, allow_deferred_init=True)

    def _input_problem(self, shape):
        axis = self._axis if self._axis >= 0 else self._axis + len(shape)
        if not 0 <= axis < len(shape):
            return f"a rank that has axis {self._axis}"
        channels = self.gamma.shape[0]
        if channels and shape[axis] != channels:
            return f"{channels} channels on axis {self._axis}"
        return None

    def _typed_params(self):
        return self._op, (self.gamma, self.beta)

    def _op_attrs(self):
        return {"eps": self._epsilon}

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        return (f"{self.__class__.__name__}(axis={self._axis}, eps={self._epsilon}, center={self._center}, "
                f"scale={self._scale}, in_channels={in_channels if in_channels else None})")


class LayerNorm(_Norm):
    """Normalises over ``axis`` (default the last): ``gamma * (x - mean) / sqrt(var + eps) + beta``."""
    _op = "LayerNorm"

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer, in_channels, **kwargs)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


class GroupNorm(_Norm):
    """Splits the channels (axis 1) into ``num_groups`` groups and normalises each group of each sample;
    ``gamma``/``beta`` have one value per group, shape ``(num_groups,)``, as in MXNet 1.9.

    >>> import hybridlab as mx
    >>> gn = mx.gluon.nn.GroupNorm(num_groups=2)
    >>> gn.initialize()
    >>> gn(mx.nd.ones((2, 4, 3, 3))).shape, gn.gamma.shape
    ((2, 4, 3, 3), (2,))
    >>> gn
    GroupNorm(eps=1e-05, num_groups=2, center=True, scale=True)
    """
    _op = "GroupNorm"

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", **kwargs):
        super().__init__(1, epsilon, center, scale, beta_initializer, gamma_initializer, num_groups,
                         op_args=[("num_groups", num_groups, "num_groups")], **kwargs)
        self._num_groups = num_groups

    def _op_attrs(self):
        return {"num_groups": self._num_groups, "eps": self._epsilon}

    def _input_problem(self, shape):
        # no channel-count check: the parameters are per group, so any C divisible by num_groups fits
        if len(shape) < 2:
            return "(N, C, ...) (rank >= 2)"
        if shape[1] % self._num_groups:
            return f"(N, C, ...) with C divisible by num_groups={self._num_groups}"
        return None

    def __repr__(self):
        return (f"GroupNorm(eps={self._epsilon}, num_groups={self._num_groups}, center={self._center}, "
                f"scale={self._scale})")

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups, eps=self._epsilon)


class InstanceNorm(_Norm):
    """Normalises each sample's each channel (channel axis ``axis``, default 1) over the remaining axes."""
    _op = "InstanceNorm"

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer, in_channels, **kwargs)

    def _input_problem(self, shape):
        if len(shape) < 3:
            return "(N, C, ...) (rank >= 3)"
        return super()._input_problem(shape)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon).swapaxes(1, self._axis)
