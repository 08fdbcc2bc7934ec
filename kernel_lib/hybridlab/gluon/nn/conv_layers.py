"""Convolution and pooling layers (MXNet 1.9's ``gluon.nn.conv_layers``): ``Conv1D/2D/3D``,
``Conv1D/2D/3DTranspose``,
``MaxPool1D/2D/3D``, ``AvgPool1D/2D/3D``, ``GlobalMaxPool1D/2D/3D``, ``GlobalAvgPool1D/2D/3D``,
``ReflectionPad2D``.
``in_channels=0`` is inferred at the first forward; the graph nodes carry exactly the attributes
MXNet's layers pass (kernel, stride, dilate, pad, num_filter, num_group, no_bias, layout).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> conv = nn.Conv2D(6, kernel_size=5, activation='relu')
    >>> conv.weight.shape
    (6, 0, 5, 5)
    >>> conv.initialize()
    >>> conv(mx.nd.ones((1, 3, 28, 28))).shape
    (1, 6, 24, 24)
    >>> conv
    Conv2D(3 -> 6, kernel_size=(5, 5), stride=(1, 1), Activation(relu))
    >>> nn.MaxPool2D(pool_size=2)(mx.nd.ones((1, 6, 24, 24))).shape
    (1, 6, 12, 12)
"""
import numbers

from ..hybrid_block import HybridBlock
from .activations import Activation
from .input_check import InputCheck, check_count, check_op_args

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
           "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
           "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D"]


def _tuple(value, n):
    return (value,) * n if isinstance(value, numbers.Integral) else tuple(value)


def _layout_text(layout, channels):
    return "(" + ", ".join(str(channels) if c == "C" and channels else c for c in layout) + ")"


class _Conv(InputCheck, HybridBlock):
    """N-d convolution: ``weight`` is ``(channels, in_channels // groups, *kernel)`` (channel-first
    layouts) or ``(channels, *kernel, in_channels // groups)`` (channel-last). The transposed
    convolution (``op_name='Deconvolution'``) has ``weight`` ``(in_channels, channels // groups,
    *kernel)`` and the extra attribute ``adj`` (``output_padding``)."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels=0,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 op_name="Convolution", adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        check_op_args(self, op_name, [("channels", channels, "num_filter"), ("kernel_size", kernel_size, "kernel"),
                                      ("strides", strides, "stride"), ("padding", padding, "pad"),
                                      ("dilation", dilation, "dilate"), ("groups", groups, "num_group"),
                                      ("layout", layout, "layout")]
                      + ([("output_padding", adj, "adj")] if adj is not None else []))
        check_count(self, "in_channels", in_channels)
        n = len(kernel_size)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            self._op_name = op_name
            self._kwargs = {"kernel": tuple(kernel_size), "stride": _tuple(strides, n), "dilate": _tuple(dilation, n),
                            "pad": _tuple(padding, n), "num_filter": channels, "num_group": groups,
                            "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = _tuple(adj, n)
            per_group = in_channels // groups if in_channels else 0
            if op_name == "Deconvolution":
                wshape = (in_channels, channels // groups) + tuple(kernel_size)
            elif layout.find("C") == 1:
                wshape = (channels, per_group) + tuple(kernel_size)
            else:
                wshape = (channels,) + tuple(kernel_size) + (per_group,)
            self.weight = self.params.get("weight", shape=wshape, init=weight_initializer, allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def _alias(self):
        return "conv"

    def _in_channels_known(self):
        shape = self.weight.shape
        if self._op_name == "Deconvolution":
            return shape[0]
        cin = shape[1] if self._kwargs["layout"].find("C") == 1 else shape[-1]
        return cin * self._kwargs["num_group"]

    def _expected_input(self):
        layout = self._kwargs["layout"]
        cin = self._in_channels_known()
        return len(layout), layout.find("C"), cin, _layout_text(layout, cin)

    def _typed_params(self):
        return self._op_name, (self.weight,) if self.bias is None else (self.weight, self.bias)

    def _op_attrs(self):
        return self._kwargs

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            act = op(x, weight, name="fwd", **self._kwargs)
        else:
            act = op(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self):
        cin = self._in_channels_known()
        return conv_repr(self, self._kwargs, self.bias is not None, f"{cin if cin else None} -> {self._channels}")


def conv_repr(block, k, has_bias, mapping):
    """MXNet's repr of a convolution layer ``block`` with operator arguments ``k``:
    ``Conv2D(3 -> 8, kernel_size=(3, 3), stride=(1, 1)...)``, the non-default settings only."""
    n = len(k["kernel"])
    s = f"{type(block).__name__}({mapping}, kernel_size={k['kernel']}, stride={k['stride']}"
    if k["pad"] != (0,) * n:
        s += f", padding={k['pad']}"
    if k["dilate"] != (1,) * n:
        s += f", dilation={k['dilate']}"
    if k["num_group"] != 1:
        s += f", groups={k['num_group']}"
    if not has_bias:
        s += ", bias=False"
    if block.act:
        s += f", {block.act}"
    return s + ")"


def _conv_class(name, ndim, layout):
    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout=layout,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros", in_channels=0,
                 **kwargs):
        _Conv.__init__(self, channels, _tuple(kernel_size, ndim), strides, padding, dilation, groups, layout,
                       in_channels, activation, use_bias, weight_initializer, bias_initializer, **kwargs)
    doc = f"{ndim}-D convolution (layout {layout}): ``{name}(channels, kernel_size, strides=1, padding=0, " \
          f"dilation=1, groups=1, layout='{layout}', activation=None, use_bias=True, in_channels=0)``."
    return type(name, (_Conv,), {"__init__": __init__, "__doc__": doc})


Conv1D = _conv_class("Conv1D", 1, "NCW")
Conv2D = _conv_class("Conv2D", 2, "NCHW")
Conv3D = _conv_class("Conv3D", 3, "NCDHW")


def _conv_transpose_class(name, ndim, layout):
    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0, dilation=1, groups=1,
                 layout=layout, activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        _Conv.__init__(self, channels, _tuple(kernel_size, ndim), strides, padding, dilation, groups, layout,
                       in_channels, activation, use_bias, weight_initializer, bias_initializer,
                       op_name="Deconvolution", adj=output_padding, **kwargs)
        self.outpad = _tuple(output_padding, ndim)
    doc = f"{ndim}-D transposed convolution (layout {layout}), the Deconvolution op: ``{name}(channels, " \
          f"kernel_size, strides=1, padding=0, output_padding=0, dilation=1, groups=1, layout='{layout}', " \
          f"activation=None, use_bias=True, in_channels=0)``; ``weight`` is ``(in_channels, channels // groups, " \
          f"*kernel)``."
    return type(name, (_Conv,), {"__init__": __init__, "__doc__": doc})


Conv1DTranspose = _conv_transpose_class("Conv1DTranspose", 1, "NCW")
Conv2DTranspose = _conv_transpose_class("Conv2DTranspose", 2, "NCHW")
Conv3DTranspose = _conv_transpose_class("Conv3DTranspose", 3, "NCDHW")


class _Pooling(InputCheck, HybridBlock):
    """Pooling with MXNet's attributes (``pooling_convention`` 'full' when ``ceil_mode``)."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        n = len(pool_size)
        if strides is None:
            strides = pool_size
        check_op_args(self, "Pooling", [("pool_size", pool_size, "kernel"), ("strides", strides, "stride"),
                                        ("padding", padding, "pad"), ("layout", layout, "layout")])
        self._kwargs = {"kernel": tuple(pool_size), "stride": _tuple(strides, n), "pad": _tuple(padding, n),
                        "global_pool": global_pool, "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def _expected_input(self):
        layout = self._kwargs["layout"]
        return len(layout), None, 0, _layout_text(layout, 0)

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        return (f"{self.__class__.__name__}(size={k['kernel']}, stride={k['stride']}, padding={k['pad']}, "
                f"ceil_mode={k['pooling_convention'] == 'full'}, global_pool={k['global_pool']}, "
                f"pool_type={k['pool_type']}, layout={k['layout']})")


def _pool_class(name, ndim, layout, pool_type):
    if pool_type == "max":
        def __init__(self, pool_size=2, strides=None, padding=0, layout=layout, ceil_mode=False, **kwargs):
            _Pooling.__init__(self, _tuple(pool_size, ndim), strides, padding, ceil_mode, False, "max", layout,
                              **kwargs)
    else:
        def __init__(self, pool_size=2, strides=None, padding=0, ceil_mode=False, layout=layout,
                     count_include_pad=True, **kwargs):
            _Pooling.__init__(self, _tuple(pool_size, ndim), strides, padding, ceil_mode, False, "avg", layout,
                              count_include_pad, **kwargs)
    doc = f"{ndim}-D {pool_type} pooling (layout {layout}); ``strides`` defaults to ``pool_size``."
    return type(name, (_Pooling,), {"__init__": __init__, "__doc__": doc})


def _global_pool_class(name, ndim, layout, pool_type):
    def __init__(self, layout=layout, **kwargs):
        _Pooling.__init__(self, (1,) * ndim, None, 0, True, True, pool_type, layout, **kwargs)
    doc = f"Global {pool_type} pooling over the {ndim} spatial axes (layout {layout})."
    return type(name, (_Pooling,), {"__init__": __init__, "__doc__": doc})


MaxPool1D = _pool_class("MaxPool1D", 1, "NCW", "max")
MaxPool2D = _pool_class("MaxPool2D", 2, "NCHW", "max")
MaxPool3D = _pool_class("MaxPool3D", 3, "NCDHW", "max")
AvgPool1D = _pool_class("AvgPool1D", 1, "NCW", "avg")
AvgPool2D = _pool_class("AvgPool2D", 2, "NCHW", "avg")
AvgPool3D = _pool_class("AvgPool3D", 3, "NCDHW", "avg")
GlobalMaxPool1D = _global_pool_class("GlobalMaxPool1D", 1, "NCW", "max")
GlobalMaxPool2D = _global_pool_class("GlobalMaxPool2D", 2, "NCHW", "max")
GlobalMaxPool3D = _global_pool_class("GlobalMaxPool3D", 3, "NCDHW", "max")
GlobalAvgPool1D = _global_pool_class("GlobalAvgPool1D", 1, "NCW", "avg")
GlobalAvgPool2D = _global_pool_class("GlobalAvgPool2D", 2, "NCHW", "avg")
GlobalAvgPool3D = _global_pool_class("GlobalAvgPool3D", 3, "NCDHW", "avg")


class ReflectionPad2D(HybridBlock):
    """Pad the two spatial axes of NCHW data by reflection (``padding``: an int for all four sides, or
    MXNet's 8-tuple ``pad_width`` over the four axes).

    >>> import hybridlab as mx
    >>> pad = mx.gluon.nn.ReflectionPad2D(1)
    >>> pad(mx.nd.array([[[[1, 2], [3, 4]]]])).asnumpy()[0, 0].tolist()
    [[4.0, 3.0, 4.0, 3.0], [2.0, 1.0, 2.0, 1.0], [4.0, 3.0, 4.0, 3.0], [2.0, 1.0, 2.0, 1.0]]
    """

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numbers.Integral):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise ValueError(f"ReflectionPad2D: padding expected an int or 8 values (pad_width of NCHW), got {padding}")
        self._padding = tuple(padding)

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)

    def __repr__(self):
        return f"{type(self).__name__}(padding={self._padding})"

