"""Inception v3 (Szegedy et al. 2015) with MXNet 1.9's block structure (branches as
``HybridConcurrent`` blocks with prefixes ``A1_`` ... ``E2_``). Expects 299x299 inputs.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.model_zoo.vision.inception_v3()
    >>> [b.prefix.split('_', 1)[1] for b in net.features][7:10]      # (after the net's counted name)
    ['A1_', 'A2_', 'A3_']
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ..model_store import no_pretrained
from .custom_layers import HybridConcurrent

__all__ = ["Inception3", "inception_v3"]


def _make_basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001), nn.Activation("relu"))
    return out


def _make_branch(use_pool, *conv_settings):
    out = nn.HybridSequential(prefix="")
    if use_pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif use_pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    names = ["channels", "kernel_size", "strides", "padding"]
    for setting in conv_settings:
        out.add(_make_basic_conv(**{names[i]: v for i, v in enumerate(setting) if v is not None}))
    return out


def _concurrent(prefix, *branches):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for make in branches:
            out.add(make())
    return out


def _make_A(pool_features, prefix):
    return _concurrent(prefix,
                       lambda: _make_branch(None, (64, 1, None, None)),
                       lambda: _make_branch(None, (48, 1, None, None), (64, 5, None, 2)),
                       lambda: _make_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
                       lambda: _make_branch("avg", (pool_features, 1, None, None)))


def _make_B(prefix):
    return _concurrent(prefix,
                       lambda: _make_branch(None, (384, 3, 2, None)),
                       lambda: _make_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
                       lambda: _make_branch("max"))


def _make_C(channels_7x7, prefix):
    c = channels_7x7
    return _concurrent(prefix,
                       lambda: _make_branch(None, (192, 1, None, None)),
                       lambda: _make_branch(None, (c, 1, None, None), (c, (1, 7), None, (0, 3)),
                                            (192, (7, 1), None, (3, 0))),
                       lambda: _make_branch(None, (c, 1, None, None), (c, (7, 1), None, (3, 0)),
                                            (c, (1, 7), None, (0, 3)), (c, (7, 1), None, (3, 0)),
                                            (192, (1, 7), None, (0, 3))),
                       lambda: _make_branch("avg", (192, 1, None, None)))


def _make_D(prefix):
    return _concurrent(prefix,
                       lambda: _make_branch(None, (192, 1, None, None), (320, 3, 2, None)),
                       lambda: _make_branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                                            (192, (7, 1), None, (3, 0)), (192, 3, 2, None)),
                       lambda: _make_branch("max"))


def _split(first):
    def make():
        seq = nn.HybridSequential(prefix="")
        seq.add(first())
        split = HybridConcurrent(axis=1, prefix="")
        split.add(_make_branch(None, (384, (1, 3), None, (0, 1))), _make_branch(None, (384, (3, 1), None, (1, 0))))
        seq.add(split)
        return seq
    return make


def _make_E(prefix):
    return _concurrent(prefix,
                       lambda: _make_branch(None, (320, 1, None, None)),
                       _split(lambda: _make_branch(None, (384, 1, None, None))),
                       _split(lambda: _make_branch(None, (448, 1, None, None), (384, 3, None, 1))),
                       lambda: _make_branch("avg", (192, 1, None, None)))


class Inception3(HybridBlock):
    """Inception v3 with ``classes`` outputs."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_make_basic_conv(channels=32, kernel_size=3, strides=2),
                              _make_basic_conv(channels=32, kernel_size=3),
                              _make_basic_conv(channels=64, kernel_size=3, padding=1),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _make_basic_conv(channels=80, kernel_size=1),
                              _make_basic_conv(channels=192, kernel_size=3),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _make_A(32, "A1_"), _make_A(64, "A2_"), _make_A(64, "A3_"), _make_B("B_"),
                              _make_C(128, "C1_"), _make_C(160, "C2_"), _make_C(160, "C3_"), _make_C(192, "C4_"),
                              _make_D("D_"), _make_E("E1_"), _make_E("E2_"),
                              nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=None, root=None, **kwargs):
    """Inception v3 (``pretrained=True`` raises: nothing is downloaded)."""
    no_pretrained("inceptionv3", pretrained)
    return Inception3(**kwargs)
