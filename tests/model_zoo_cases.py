"""The model-zoo nets as test cases, shared by the tests that run every one (conv paths, inference
passes): ``zoo_params()`` for ``pytest.mark.parametrize("name", ...)``, the deeper variants marked
to run only with ``HYBRIDLAB_SLOW_TESTS=1``, and ``zoo_input_shape(name)``."""
import os

import pytest

from hybridlab.gluon.model_zoo import vision

# the smallest input each net takes (its last pooling window needs a large enough map); the rest
# end in global pooling (or flatten a 1x1 map) and take 32x32
ZOO_SIZES = {"alexnet": 63, "squeezenet1.1": 209, "squeezenet1.0": 213, "inceptionv3": 299,
             **{f"densenet{n}": 221 for n in (121, 161, 169, 201)}}
# the deeper variants of each family and Inception v3 (299x299 only): the NumPy path's backward at their
# sizes takes 5-40 s each on a busy 2-core machine; HYBRIDLAB_SLOW_TESTS=1 runs them (all pass)
ZOO_SLOW = {"densenet161", "densenet169", "densenet201", "inceptionv3", "resnet34_v1", "resnet50_v1",
            "resnet101_v1", "resnet101_v2", "resnet152_v1", "resnet152_v2", "vgg11_bn", "vgg13", "vgg13_bn",
            "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"}
_slow = pytest.mark.skipif(not os.environ.get("HYBRIDLAB_SLOW_TESTS"),
                           reason="slow model-zoo case: set HYBRIDLAB_SLOW_TESTS=1 to run it")


def zoo_params():
    """Every model-zoo name, the slow ones marked."""
    return [pytest.param(n, marks=_slow) if n in ZOO_SLOW else n for n in sorted(vision.MODELS)]


def zoo_input_shape(name):
    """A one-image batch of the smallest input ``name`` takes."""
    size = ZOO_SIZES.get(name, 32)
    return (1, 3, size, size)
