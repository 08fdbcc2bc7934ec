"""``gluon.nn.ReflectionPad2D`` pads H and W by reflection, imperative and hybridized alike."""
import numpy as np
import pytest

import hybridlab as mx


@pytest.mark.parametrize("hybridize", [False, True])
def test_reflection_pad_matches_numpy_with_gradient(hybridize):
    x = mx.nd.array(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4))
    pad = mx.gluon.nn.ReflectionPad2D(2)
    if hybridize:
        pad.hybridize()
    x.attach_grad()
    with mx.autograd.record():
        y = pad(x)
    y.backward(mx.nd.ones(y.shape))
    want = np.pad(x.asnumpy(), ((0, 0), (0, 0), (2, 2), (2, 2)), mode="reflect")
    np.testing.assert_array_equal(y.asnumpy(), want)
    # each input element gets one gradient per place the reflection copies it to
    counts = np.zeros((3, 4))
    index = np.pad(np.arange(12).reshape(3, 4), 2, mode="reflect")
    np.add.at(counts.ravel(), index.ravel(), 1)
    np.testing.assert_array_equal(x.grad.asnumpy()[0, 0], counts)


def test_reflection_pad_rejects_a_bad_padding():
    with pytest.raises(ValueError, match=r"padding expected an int or 8 values .*, got \(1, 1\)"):
        mx.gluon.nn.ReflectionPad2D((1, 1))
