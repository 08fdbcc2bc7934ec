"""Models several tests share."""
import hybridlab as mx
from hybridlab.gluon import nn


def tutorial_mlp(initialize=True):
    """The hybridize tutorial's MLP (512 -> 256 relu -> 128 relu -> 2), in MXNet 1.x style."""
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"))
        net.add(nn.Dense(128, activation="relu"))
        net.add(nn.Dense(2))
    if initialize:
        net.initialize()
    return net


def tutorial_mlp_symbol():
    """The graph the tutorial MLP traces to (hybridized, one forward at batch 1)."""
    net = tutorial_mlp()
    net.hybridize()
    net(mx.nd.ones((1, 512)))
    return net.hybridization.graph


# the smallest square input each model-zoo net accepts (32 for the rest): global pooling at the end
# of DenseNet and SqueezeNet, AlexNet's strides and Inception v3's stem need more
ZOO_INPUT_SIDE = {"inceptionv3": 299, "alexnet": 224, "squeezenet1.0": 224, "squeezenet1.1": 224,
                  **{f"densenet{n}": 224 for n in (121, 161, 169, 201)}}


def zoo_input_side(name):
    return ZOO_INPUT_SIDE.get(name, 32)
