"""Real data: scikit-learn's bundled 8x8 digits (no download). A LeNet-style net trained hybridized
with gluon.Trainer + SoftmaxCrossEntropyLoss + DataLoader reaches >= 97% test accuracy; imperative and
hybridized training from the same seed give the same loss curve (1e-4)."""
import time

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd, gluon
from hybridlab.gluon import nn

datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn (the test extra) ships the digits data")
if not hasattr(gluon, "Trainer") or not hasattr(gluon, "loss"):
    pytest.skip("gluon.Trainer / gluon.loss have not landed yet", allow_module_level=True)


def _digits():
    d = datasets.load_digits()
    x = (d.images / 16.0).astype("float32")[:, None]          # (1797, 1, 8, 8) in [0, 1]
    y = d.target.astype("float32")
    perm = np.random.RandomState(0).permutation(len(y))
    x, y = x[perm], y[perm]
    return (x[:1437], y[:1437]), (x[1437:], y[1437:])


def _lenet():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(16, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Conv2D(32, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Flatten(), nn.Dense(64, activation="relu"), nn.Dense(10))
    return net


def _train(hybridize, epochs, seed=7):
    (xtr, ytr), (xte, yte) = _digits()
    mx.random.seed(seed)
    np.random.seed(seed)
    net = _lenet()
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.005})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(xtr, ytr), batch_size=64, shuffle=True)
    losses = []
    for epoch in range(epochs):
        for i, (data, label) in enumerate(loader):
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(data.shape[0])
            losses.append(float(loss.mean().asnumpy().reshape(())))
            done = int(20 * (i + 1) / len(loader))
            print(f"\repoch {epoch + 1}/{epochs} [{'#' * done}{'.' * (20 - done)}] loss {losses[-1]:.4f}", end="")
        print()
    pred = net(mx.nd.array(xte)).asnumpy().argmax(axis=1)
    return np.array(losses), float((pred == yte).mean())


def test_digits_hybridized_training_reaches_97_percent():
    start = time.perf_counter()
    losses, acc = _train(hybridize=True, epochs=12)
    print(f"digits: 12 epochs hybridized, test accuracy {acc:.4f}, {time.perf_counter() - start:.1f} s")
    assert losses[-20:].mean() < losses[:20].mean() / 5
    assert acc >= 0.97, f"expected >= 97% test accuracy, got {acc:.2%}"


def test_digits_imperative_and_hybridized_same_loss_curve():
    imperative, _ = _train(hybridize=False, epochs=2)
    hybrid, _ = _train(hybridize=True, epochs=2)
    assert imperative.shape == hybrid.shape == (46,)
    np.testing.assert_allclose(hybrid, imperative, rtol=1e-4, atol=1e-4)
