"""DenseNet-BC 121/161/169/201 (Huang et al. 2016) with MXNet 1.9's block structure
(``densenet0_stage1_conv0_weight``, ...).

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.model_zoo.vision.densenet121()
    >>> len(net.features)
    15
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ..model_store import no_pretrained
from .custom_layers import HybridConcurrent

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "get_densenet"]


def _make_dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_make_dense_layer(growth_rate, bn_size, dropout))
    return out


def _make_dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential(prefix="")
    new_features.add(nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
                     nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix="")
    out.add(nn.Identity(), new_features)
    return out


def _make_transition(num_output_features):
    out = nn.HybridSequential(prefix="")
    out.add(nn.BatchNorm(), nn.Activation("relu"), nn.Conv2D(num_output_features, kernel_size=1, use_bias=False),
            nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """DenseNet-BC: ``num_init_features`` stem filters, ``growth_rate``, ``block_config`` layers per block."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0, classes=1000,
                 **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3, use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(_make_dense_block(num_layers, bn_size, growth_rate, dropout, i + 1))
                num_features = num_features + num_layers * growth_rate
                if i != len(block_config) - 1:
                    self.features.add(_make_transition(num_features // 2))
                    num_features = num_features // 2
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """DenseNet with ``num_layers`` (121, 161, 169, 201)."""
    if num_layers not in densenet_spec:
        raise ValueError(f"Invalid number of layers: {num_layers}. Options are {sorted(densenet_spec)}")
    no_pretrained(f"densenet{num_layers}", pretrained)
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    return DenseNet(num_init_features, growth_rate, block_config, **kwargs)


def densenet121(**kwargs):
    """DenseNet-121."""
    return get_densenet(121, **kwargs)


def densenet161(**kwargs):
    """DenseNet-161."""
    return get_densenet(161, **kwargs)


def densenet169(**kwargs):
    """DenseNet-169."""
    return get_densenet(169, **kwargs)


def densenet201(**kwargs):
    """DenseNet-201."""
    return get_densenet(201, **kwargs)
