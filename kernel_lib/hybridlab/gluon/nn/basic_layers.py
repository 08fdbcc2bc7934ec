"""Basic layers (MXNet 1.9's ``gluon.nn.basic_layers``): containers ``Sequential`` and
``HybridSequential``, ``Dense``, ``Dropout``, ``BatchNorm``, ``Flatten``, ``Lambda``,
``HybridLambda``, ``Identity``. Unknown input sizes (``in_units=0``, ``in_channels=0``) are inferred
at the first forward pass. Parameter names follow MXNet: ``weight``, ``bias``, ``gamma``, ``beta``,
``running_mean``, ``running_var`` under the block's prefix.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> with mx.name.NameManager():
    ...     net = nn.HybridSequential()
    ...     with net.name_scope():
    ...         net.add(nn.Dense(3, activation='relu'), nn.BatchNorm(), nn.Dense(2))
    >>> net
    HybridSequential(
      (0): Dense(None -> 3, Activation(relu))
      (1): BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, in_channels=None)
      (2): Dense(None -> 2, linear)
    )
    >>> net.initialize()
    >>> net(mx.nd.ones((4, 5))).shape
    (4, 2)
    >>> [p.name for p in net.collect_params().values()][:3]
    ['hybridsequential0_dense0_weight', 'hybridsequential0_dense0_bias', 'hybridsequential0_batchnorm0_gamma']
"""
import warnings

import math

import numpy as np

from ... import ndarray as _nd, symbol as _sym
from ..block import Block
from ..hybrid_block import HybridBlock
from ..utils import indent
from .activations import Activation
from .input_check import InputCheck, check_count, check_op_args

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "BatchNorm", "Flatten", "Lambda",
           "HybridLambda", "Identity"]


def _sequential_forward(children, x, args):
    for block in children:
        x = block(x, *args)
        args = []
        if isinstance(x, (tuple, list)):
            args = x[1:]
            x = x[0]
    if args:
        x = tuple([x] + list(args))
    return x


class _SequentialMixin:
    def add(self, *blocks):
        """Append ``blocks`` as children, in order."""
        for block in blocks:
            self.register_child(block)

    def __repr__(self):
        modstr = "\n".join(f"  ({key}): {indent(repr(block), 2)}" for key, block in self._children.items())
        return f"{self.__class__.__name__}(\n{modstr}\n)"

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)


class Sequential(_SequentialMixin, Block):
    """Stacks Blocks sequentially: ``net.add(block, ...)``; ``net[i]``, ``net[a:b]``, ``len(net)``."""

    def forward(self, x, *args):
        return _sequential_forward(self._children.values(), x, args)

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are HybridBlocks. Consider using "
                          f"HybridSequential for the best performance.", stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stacks HybridBlocks sequentially (hybridizable as a whole)."""

    def hybrid_forward(self, F, x, *args):
        return _sequential_forward(self._children.values(), x, args)


class Dense(InputCheck, HybridBlock):
    """A fully connected layer ``activation(dot(x, weight.T) + bias)``. ``in_units=0`` is inferred
    at the first forward; ``flatten=True`` collapses all but the first input axis."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        if units != 0:   # MXNet builds Dense(0) (1.x code holds such layers unused); its op refuses it when run
            check_op_args(self, "FullyConnected", [("units", units, "num_hidden")])
        check_count(self, "in_units", in_units)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer, dtype=dtype,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def _input_problem(self, shape):
        units = self.weight.shape[1]
        if not units or not shape:
            return None
        got = math.prod(shape[1:]) if self._flatten else shape[-1]
        if got == units:
            return None
        return f"(N, {units})" + (f" or (N, ...) with {units} values after axis 0" if self._flatten else
                                  f" or (..., {units})")

    def _typed_params(self):
        return "FullyConnected", (self.weight,) if self.bias is None else (self.weight, self.bias)

    def _op_attrs(self):
        return {"num_hidden": self._units, "no_bias": self.bias is None, "flatten": self._flatten}

    def hybrid_forward(self, F, x, weight, bias=None):
        extra = (bias,) if bias is not None else ()
        act = F.FullyConnected(x, weight, *extra, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name="fwd")
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self):
        shape = self.weight.shape
        return f"{self.__class__.__name__}({shape[1] if shape[1] else None} -> {shape[0]}, " \
               f"{self.act if self.act else 'linear'})"


class Dropout(HybridBlock):
    """Sets a fraction ``rate`` of the input to 0 during training (scaling the rest by
    ``1/(1-rate)``); the identity in prediction mode."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        check_op_args(self, "Dropout", [("rate", rate, "p"), ("axes", axes, "axes")])
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return f"{self.__class__.__name__}(p = {self._rate}, axes={self._axes})"


class BatchNorm(InputCheck, HybridBlock):
    """Batch normalisation over ``axis``, with learned ``gamma``/``beta`` and running statistics
    (auxiliary states, ``grad_req='null'``) updated with ``momentum`` during training."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer="zeros", gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        check_op_args(self, "BatchNorm", [("axis", axis, "axis"), ("momentum", momentum, "momentum"),
                                          ("epsilon", epsilon, "eps")])
        check_count(self, "in_channels", in_channels)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats}
        self._axis = axis
        if in_channels != 0:
            self.in_channels = in_channels
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(in_channels,),
                                     init=gamma_initializer, allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(in_channels,),
                                    init=beta_initializer, allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null", shape=(in_channels,),
                                            init=running_mean_initializer, allow_deferred_init=True,
                                            differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null", shape=(in_channels,),
                                           init=running_variance_initializer, allow_deferred_init=True,
                                           differentiable=False)

    def _input_problem(self, shape):
        channels = self.gamma.shape[0]
        axis = self._axis if self._axis >= 0 else self._axis + len(shape)
        if not 0 <= axis < len(shape):
            return f"at least rank {abs(self._axis) if self._axis < 0 else self._axis + 1} (axis {self._axis})"
        if channels and shape[axis] != channels:
            return f"{channels} channels on axis {self._axis}"
        return None

    def _typed_params(self):
        return "BatchNorm", (self.gamma, self.beta, self.running_mean, self.running_var)

    def _op_attrs(self):
        return self._kwargs

    def cast(self, dtype):
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)

    def __repr__(self):
        content = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        in_channels = self.gamma.shape[0]
        return f"{self.__class__.__name__}({content}, in_channels={in_channels if in_channels else None})"


class Flatten(HybridBlock):
    """Flattens the input to 2-D: ``(batch, everything else)``."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class Identity(HybridBlock):
    """Returns its input unchanged (a placeholder layer)."""

    def hybrid_forward(self, F, x):
        return x

    def __repr__(self):
        return self.__class__.__name__


class Lambda(Block):
    """Wraps ``function`` (an ``mx.nd`` function name, or a callable on NDArrays) as a Block.

    >>> import hybridlab as mx
    >>> mx.gluon.nn.Lambda('tanh')(mx.nd.zeros((1,))).asnumpy().tolist()
    [0.0]
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(_nd, function):
                raise AssertionError(f"Function name {function} is not found in ndarray.")
            self._func_impl = getattr(_nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError(f"Unrecognized function in lambda: {function} of type {type(function)}")

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return f"{self.__class__.__name__}({getattr(self._func_impl, '__name__', self._func_impl)})"


class HybridLambda(HybridBlock):
    """Wraps ``function`` as a HybridBlock: an operator name available in both ``mx.nd`` and
    ``mx.sym``, or a callable ``function(F, x, *args)``.

    >>> import hybridlab as mx
    >>> block = mx.gluon.nn.HybridLambda(lambda F, x: F.relu(x) * 2)
    >>> block.hybridize()
    >>> block(mx.nd.array([-1.0, 3.0])).asnumpy().tolist()
    [0.0, 6.0]
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not (hasattr(_nd, function) and hasattr(_sym, function)):
                raise AssertionError(f"Function name {function} is not found in symbol/ndarray.")
            funcs = {id(_sym): getattr(_sym, function), id(_nd): getattr(_nd, function)}
            self._func = lambda F, *args: funcs[id(F)](*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = getattr(function, "__name__", repr(function))
        else:
            raise ValueError(f"Unrecognized function in lambda: {function} of type {type(function)}")

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._func_name})"
