"""VGG 11/13/16/19 (Simonyan & Zisserman 2014), with and without BatchNorm, and AlexNet
(Krizhevsky 2012), with MXNet 1.9's block structure.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.model_zoo.vision.vgg11(classes=10)
    >>> [type(b).__name__ for b in net.features][:3]
    ['Conv2D', 'Activation', 'MaxPool2D']
"""
from .... import initializer
from ... import nn
from ...hybrid_block import HybridBlock
from ..model_store import no_pretrained

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn", "get_vgg",
           "AlexNet", "alexnet"]


class VGG(HybridBlock):
    """VGG: ``layers`` convolutions per stage with ``filters`` channels, then 2 x Dense(4096) + output."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters), f"expected as many stages in layers as filters, got {layers}, {filters}"
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for i, num in enumerate(layers):
                for _ in range(num):
                    self.features.add(nn.Conv2D(filters[i], kernel_size=3, padding=1,
                                                weight_initializer=initializer.Xavier(rnd_type="gaussian",
                                                                                      factor_type="out", magnitude=2),
                                                bias_initializer="zeros"))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"))
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """VGG with ``num_layers`` (11, 13, 16, 19); ``batch_norm=True`` for the BN variant."""
    if num_layers not in vgg_spec:
        raise ValueError(f"Invalid number of layers: {num_layers}. Options are {sorted(vgg_spec)}")
    no_pretrained(f"vgg{num_layers}{'_bn' if kwargs.get('batch_norm') else ''}", pretrained)
    layers, filters = vgg_spec[num_layers]
    return VGG(layers, filters, **kwargs)


def _constructor(num_layers, batch_norm):
    def build(**kwargs):
        if batch_norm:
            kwargs["batch_norm"] = True
        return get_vgg(num_layers, **kwargs)
    build.__name__ = f"vgg{num_layers}{'_bn' if batch_norm else ''}"
    build.__doc__ = f"VGG-{num_layers}{' with BatchNorm' if batch_norm else ''}."
    return build


vgg11, vgg13, vgg16, vgg19 = [_constructor(n, False) for n in (11, 13, 16, 19)]
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = [_constructor(n, True) for n in (11, 13, 16, 19)]


class AlexNet(HybridBlock):
    """AlexNet: five convolutions (three max-pools), two Dense(4096) with dropout, output."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                self.features.add(nn.Conv2D(64, kernel_size=11, strides=4, padding=2, activation="relu"),
                                  nn.MaxPool2D(pool_size=3, strides=2),
                                  nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"),
                                  nn.MaxPool2D(pool_size=3, strides=2),
                                  nn.Conv2D(384, kernel_size=3, padding=1, activation="relu"),
                                  nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                                  nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                                  nn.MaxPool2D(pool_size=3, strides=2),
                                  nn.Flatten(),
                                  nn.Dense(4096, activation="relu"), nn.Dropout(0.5),
                                  nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=None, root=None, **kwargs):
    """AlexNet (``pretrained=True`` raises: nothing is downloaded)."""
    no_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)
