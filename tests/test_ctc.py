"""CTC: ``nd.ctc_loss`` and ``gluon.loss.CTCLoss`` give MXNet 1.9.1's losses and gradients (values
recorded from real MXNet on the same inputs), imperative and hybridized."""
import numpy as np
import pytest

import hybridlab as mx

X = np.random.RandomState(0).randn(6, 3, 5).astype(np.float32)        # (T, N, C)
HEADS = [1.0, 2.0, 0.5]
MXNET = {   # blank_label -> (labels, losses, gradient of sample 0 with the head gradients above)
    "first": ([[2, 1, 0], [3, 3, 0], [1, 2, 4]], [6.23016881942749, 12.789984703063965, 6.960723400115967],
              [[-0.4575, 0.05769, -0.21396, 0.36351, 0.25026], [-0.40576, 0.38533, -0.19157, 0.16167, 0.05032],
               [-0.21465, 0.17177, -0.17452, 0.03553, 0.18187], [-0.12494, -0.12506, 0.00514, 0.04839, 0.19647],
               [-0.14543, -0.34504, 0.03674, 0.05884, 0.39489], [-0.3299, -0.38819, 0.17124, 0.22371, 0.32314]]),
    "last": ([[1, 0, -1], [3, 3, -1], [0, 1, 2]], [4.6347270011901855, 7.108089923858643, 7.920328617095947],
             [[0.22565, -0.14651, 0.10289, 0.36351, -0.54555], [0.14355, -0.40336, 0.09629, 0.16167, 0.00185],
              [-0.01143, -0.1161, 0.10599, 0.03553, -0.014], [-0.34158, -0.0166, 0.52887, 0.04839, -0.21908],
              [-0.21926, 0.21188, 0.14665, 0.05884, -0.19811], [-0.13757, 0.12788, 0.17124, 0.22371, -0.38526]]),
}


@pytest.mark.parametrize("blank", ["first", "last"])
def test_ctc_loss_and_gradient_match_mxnet(blank):
    labels, losses, grad0 = MXNET[blank]
    data = mx.nd.array(X)
    data.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.ctc_loss(data, mx.nd.array(labels), blank_label=blank)
    loss.backward(mx.nd.array(HEADS))
    np.testing.assert_allclose(loss.asnumpy(), losses, rtol=1e-5)
    np.testing.assert_allclose(data.grad.asnumpy()[:, 0, :], grad0, atol=1e-5)


def test_lengths_match_mxnet_and_frames_past_the_end_get_no_gradient():
    data = mx.nd.array(X)
    data.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.ctc_loss(data, mx.nd.array([[2, 1, 3], [3, 3, 1], [1, 2, 4]]), mx.nd.array([6, 4, 5]),
                              mx.nd.array([2, 3, 1]), use_data_lengths=True, use_label_lengths=True)
    loss.backward()
    np.testing.assert_allclose(loss.asnumpy(), [6.23016881942749, 10.720751762390137, 7.742733478546143], rtol=1e-5)
    np.testing.assert_allclose(data.grad.asnumpy()[:4, 1, 0], [0.06039, -0.99464, 0.12522, 0.10862], atol=1e-5)
    assert not data.grad.asnumpy()[4:, 1].any()


def test_gluon_ctc_loss_imperative_and_hybridized():
    pred = mx.nd.array(np.transpose(X, (1, 0, 2)))                     # NTC
    labels = mx.nd.array(MXNET["last"][0])
    grads = []
    for hybridize in (False, True):
        loss_fn = mx.gluon.loss.CTCLoss()
        if hybridize:
            loss_fn.hybridize()
        p = pred.copy()
        p.attach_grad()
        with mx.autograd.record():
            loss = loss_fn(p, labels)
        loss.backward()
        np.testing.assert_allclose(loss.asnumpy(), MXNET["last"][1], rtol=1e-5)
        grads.append(p.grad.asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-7)


def test_labels_that_cannot_fit_give_zero_loss_and_no_gradient():
    data = mx.nd.array(X[:3])
    data.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.ctc_loss(data, mx.nd.array([[3, 3, 3], [3, 3, 0], [1, 0, 0]]))   # 3,3,3 needs 5 frames
    loss.backward()
    assert loss.asnumpy()[0] == 0 and not data.grad.asnumpy()[:, 0].any()
    np.testing.assert_allclose(loss.asnumpy()[1:], [9.783198356628418, 5.532595634460449], rtol=1e-5)


def test_more_labels_than_frames_is_refused_as_mxnet():
    with pytest.raises(mx.MXNetError, match=r"at most 2\) labels: no more than the data's 2 frames"):
        mx.nd.ctc_loss(mx.nd.zeros((2, 1, 4)), mx.nd.array([[1, 2, 3]]))
