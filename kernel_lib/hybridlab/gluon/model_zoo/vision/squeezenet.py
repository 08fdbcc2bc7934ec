"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016) with MXNet 1.9's block structure.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.model_zoo.vision.squeezenet1_1(classes=10)
    >>> net.initialize()
    >>> net(mx.nd.ones((1, 3, 224, 224))).shape
    (1, 10)
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ..model_store import no_pretrained
from .custom_layers import HybridConcurrent

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1", "get_squeezenet"]


def _make_fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding))
    out.add(nn.Activation("relu"))
    return out


def _make_fire(squeeze_channels, expand1x1_channels, expand3x3_channels):
    out = nn.HybridSequential(prefix="")
    out.add(_make_fire_conv(squeeze_channels, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_make_fire_conv(expand1x1_channels, 1))
    paths.add(_make_fire_conv(expand3x3_channels, 3, 1))
    out.add(paths)
    return out


class SqueezeNet(HybridBlock):
    """SqueezeNet ``version`` '1.0' or '1.1' with ``classes`` outputs."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in ("1.0", "1.1"):
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1.0 or 1.1 expected")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            pool = lambda: nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)  # noqa: E731
            if version == "1.0":
                self.features.add(nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation("relu"), pool(),
                                  _make_fire(16, 64, 64), _make_fire(16, 64, 64), _make_fire(32, 128, 128), pool(),
                                  _make_fire(32, 128, 128), _make_fire(48, 192, 192), _make_fire(48, 192, 192),
                                  _make_fire(64, 256, 256), pool(), _make_fire(64, 256, 256))
            else:
                self.features.add(nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation("relu"), pool(),
                                  _make_fire(16, 64, 64), _make_fire(16, 64, 64), pool(),
                                  _make_fire(32, 128, 128), _make_fire(32, 128, 128), pool(),
                                  _make_fire(48, 192, 192), _make_fire(48, 192, 192),
                                  _make_fire(64, 256, 256), _make_fire(64, 256, 256))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"), nn.AvgPool2D(13),
                            nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=None, root=None, **kwargs):
    """SqueezeNet ``version`` ('1.0' or '1.1')."""
    no_pretrained(f"squeezenet{version}", pretrained)
    return SqueezeNet(version, **kwargs)


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0."""
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1."""
    return get_squeezenet("1.1", **kwargs)
