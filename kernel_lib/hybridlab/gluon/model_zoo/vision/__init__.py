"""``mx.gluon.model_zoo.vision``: AlexNet, DenseNet, Inception v3, ResNet v1/v2, SqueezeNet, VGG,
MobileNet v1/v2 — architectures only, with MXNet 1.9's block structure, so ``export`` writes MXNet's
argument names and MXNet's ``.params`` files load with ``load_parameters``. ``get_model(name)`` takes
MXNet's model names; ``pretrained=True`` raises (nothing can be downloaded).

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.model_zoo.vision.get_model('resnet18_v1', classes=4)
    >>> net.initialize()
    >>> net(mx.nd.ones((2, 3, 32, 32))).shape
    (2, 4)
    >>> 'mobilenet0.25' in mx.gluon.model_zoo.vision.MODELS
    True
"""
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from . import densenet as _d, inception as _i, mobilenet as _m, resnet as _r, squeezenet as _s, vgg as _v

MODELS = {
    **{f"resnet{n}_v{v}": getattr(_r, f"resnet{n}_v{v}") for v in (1, 2) for n in (18, 34, 50, 101, 152)},
    **{f"vgg{n}{bn}": getattr(_v, f"vgg{n}{bn}") for n in (11, 13, 16, 19) for bn in ("", "_bn")},
    "alexnet": _v.alexnet,
    **{f"densenet{n}": getattr(_d, f"densenet{n}") for n in (121, 161, 169, 201)},
    "squeezenet1.0": _s.squeezenet1_0, "squeezenet1.1": _s.squeezenet1_1,
    "inceptionv3": _i.inception_v3,
    "mobilenet1.0": _m.mobilenet1_0, "mobilenet0.75": _m.mobilenet0_75, "mobilenet0.5": _m.mobilenet0_5,
    "mobilenet0.25": _m.mobilenet0_25,
    "mobilenetv2_1.0": _m.mobilenet_v2_1_0, "mobilenetv2_0.75": _m.mobilenet_v2_0_75,
    "mobilenetv2_0.5": _m.mobilenet_v2_0_5, "mobilenetv2_0.25": _m.mobilenet_v2_0_25,
}


def get_model(name, **kwargs):
    """Build the model ``name`` (MXNet's names: 'resnet50_v1', 'mobilenet0.25', 'squeezenet1.1',
    'vgg16_bn', 'inceptionv3', ...); ``kwargs`` go to its constructor (``classes``, ``pretrained``).
    ``pretrained=True`` raises an error saying how to load local parameters instead."""
    key = name.lower()
    if key not in MODELS:
        raise ValueError(f"Model '{name}' is not supported. Available models: {', '.join(sorted(MODELS))}")
    return MODELS[key](**kwargs)
