"""Deformable convolution layers (MXNet 1.x's ``gluon.contrib.cnn``): a plain Convolution computes,
from the input, the sampling offsets (and, for v2, the masks) of a deformable convolution that
computes the output. Both convolutions' parameters live in the layer: ``offset_weight`` /
``offset_bias`` (zero-initialised: the layer starts as an ordinary convolution) and
``deformable_conv_weight`` / ``deformable_conv_bias``.

Example (zero offsets: the same as Convolution with the same weights)::

    >>> import hybridlab as mx
    >>> layer = mx.gluon.contrib.cnn.ModulatedDeformableConvolution(3, kernel_size=(3, 3), in_channels=2)
    >>> layer.initialize()
    >>> x = mx.nd.random.uniform(shape=(1, 2, 6, 6))
    >>> y = layer(x)                    # the zero masks' logits give masks sigmoid(0) * 2 = 1
    >>> w = layer.deformable_conv_weight.data()
    >>> ref = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True)
    >>> bool((y - ref).abs().max() < 1e-5)
    True
"""
from .... import symbol
from ....base import numeric_types
from ...hybrid_block import HybridBlock
from ...nn import Activation
from ...nn.conv_layers import conv_repr

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


class _DeformableBase(HybridBlock):
    """What both versions share: the arguments, the offset convolution and the parameters.
    ``_offset_per_tap`` is how many offset-convolution channels each kernel tap of each
    deformable group gets (2 offsets, plus 1 mask logit for v2); ``_conv_params_first``: the
    deformable convolution's parameters are created (and listed) before the offset convolution's,
    as MXNet's v2 layer does."""

    _offset_per_tap = 2
    _conv_params_first = False

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        if layout not in ("NCHW", "NHWC"):
            raise AssertionError(f"{type(self).__name__}: only supports 'NCHW' and 'NHWC' layout for now, "
                                 f"got {layout!r}")
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            if isinstance(kernel_size, numeric_types):
                kernel_size = (kernel_size,) * 2
            kernel_size = tuple(kernel_size)
            n = len(kernel_size)
            strides, padding, dilation = (tuple(v) if not isinstance(v, numeric_types) else (v,) * n
                                          for v in (strides, padding, dilation))
            self._op_name = op_name or type(self).__name__
            taps = kernel_size[0] * kernel_size[1]
            self._kwargs_offset = {"kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                                   "num_filter": self._offset_per_tap * taps * num_deformable_group,
                                   "num_group": groups, "no_bias": not offset_use_bias, "layout": layout}
            self._kwargs_deformable_conv = {"kernel": kernel_size, "stride": strides, "dilate": dilation,
                                            "pad": padding, "num_filter": channels, "num_group": groups,
                                            "num_deformable_group": num_deformable_group,
                                            "no_bias": not use_bias, "layout": layout}
            if adj:
                self._kwargs_offset["adj"] = adj
                self._kwargs_deformable_conv["adj"] = adj
            self._offset_split_index = 2 * taps * num_deformable_group
            makers = [lambda: self._offset_params(n, layout, in_channels, offset_weight_initializer,
                                                  offset_bias_initializer, offset_use_bias),
                      lambda: self._conv_params(n, channels, kernel_size, weight_initializer, bias_initializer,
                                                use_bias)]
            for make in (reversed(makers) if self._conv_params_first else makers):
                make()
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _offset_params(self, n, layout, in_channels, weight_initializer, bias_initializer, use_bias):
        dshape = [0] * (n + 2)
        dshape[layout.find("N")] = 1
        dshape[layout.find("C")] = in_channels
        offset = symbol.Convolution(symbol.var("data", shape=tuple(dshape)), **self._kwargs_offset)
        shapes = offset.infer_shape_partial()[0]
        self.offset_weight = self.params.get("offset_weight", shape=shapes[1], init=weight_initializer,
                                             allow_deferred_init=True)
        self.offset_bias = self.params.get("offset_bias", shape=shapes[2], init=bias_initializer,
                                           allow_deferred_init=True) if use_bias else None

    def _conv_params(self, n, channels, kernel_size, weight_initializer, bias_initializer, use_bias):
        wshape = [0] * (n + 2)
        wshape[0], wshape[2], wshape[3] = channels, kernel_size[0], kernel_size[1]
        self.deformable_conv_weight = self.params.get("deformable_conv_weight", shape=tuple(wshape),
                                                      init=weight_initializer, allow_deferred_init=True)
        self.deformable_conv_bias = self.params.get("deformable_conv_bias", shape=(channels,),
                                                    init=bias_initializer,
                                                    allow_deferred_init=True) if use_bias else None

    def _offsets(self, F, x, offset_weight, offset_bias):
        args = (x, offset_weight) if offset_bias is None else (x, offset_weight, offset_bias)
        return F.Convolution(*args, cudnn_off=True, **self._kwargs_offset)

    def _finish(self, act):
        return self.act(act) if self.act else act

class DeformableConvolution(_DeformableBase):
    """2-D Deformable Convolution v1 (Dai et al., 2017): a Convolution over the input gives, per
    output position, an offset (dy, dx) for each kernel tap of each of ``num_deformable_group``
    channel groups; ``contrib.DeformableConvolution`` then samples the input at the displaced taps
    (bilinear) and convolves. The arguments are Conv2D's plus ``num_deformable_group``,
    ``offset_weight_initializer`` / ``offset_bias_initializer`` (zeros) and ``offset_use_bias``.
    Input (N, C, H, W), output (N, channels, Ho, Wo) with Convolution's Ho, Wo.

    >>> import hybridlab as mx
    >>> layer = DeformableConvolution(2, kernel_size=(3, 3), num_deformable_group=2, use_bias=False)
    >>> layer.initialize()
    >>> layer(mx.nd.ones((1, 4, 5, 5))).shape, layer.offset_weight.shape
    ((1, 2, 3, 3), (36, 4, 3, 3))
    """

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        args = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        act = F.contrib.DeformableConvolution(data=x, offset=offset, weight=deformable_conv_weight, name="fwd",
                                              **args, **self._kwargs_deformable_conv)
        return self._finish(act)

    def _alias(self):
        return "deformable_conv"

    def __repr__(self):
        shape = self.deformable_conv_weight.shape
        return conv_repr(self, self._kwargs_deformable_conv, self.deformable_conv_bias is not None,
                         f"{shape[1] if shape[1] else None} -> {shape[0]}")


class ModulatedDeformableConvolution(_DeformableBase):
    """2-D Deformable Convolution v2 (Zhu et al., 2018, https://arxiv.org/abs/1811.11168): as
    ``DeformableConvolution``, and the offset Convolution also gives one mask logit per tap and
    group; the mask ``sigmoid(logit) * 2`` scales each sample (1 for the zero-initialised offset
    convolution). Runs ``contrib.ModulatedDeformableConvolution``.

    >>> import hybridlab as mx
    >>> layer = ModulatedDeformableConvolution(2, kernel_size=3, strides=2)
    >>> layer.initialize()
    >>> layer(mx.nd.ones((1, 3, 7, 7))).shape, layer.offset_weight.shape
    ((1, 2, 3, 3), (27, 3, 3, 3))
    """

    _offset_per_tap = 3
    _conv_params_first = True

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        offset_t = F.slice_axis(offset, axis=1, begin=0, end=self._offset_split_index)
        mask = F.slice_axis(offset, axis=1, begin=self._offset_split_index, end=None)
        mask = F.sigmoid(mask) * 2
        args = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        act = F.contrib.ModulatedDeformableConvolution(data=x, offset=offset_t, mask=mask,
                                                       weight=deformable_conv_weight, name="fwd", **args,
                                                       **self._kwargs_deformable_conv)
        return self._finish(act)

    def _alias(self):
        return "modulated_deformable_conv"
