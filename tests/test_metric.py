"""gluon.metric / mx.metric: each metric against a NumPy (or scikit-learn style) computation, over
several updates; create(), CompositeEvalMetric, reset/get_name_value."""
import math

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import metric

RNG = np.random.RandomState(2)
nd = mx.nd.array


def test_mx_metric_is_gluon_metric():
    assert mx.metric is mx.gluon.metric
    assert isinstance(mx.metric.create("acc"), metric.Accuracy)
    assert isinstance(metric.create("top_k_acc", top_k=3), metric.TopKAccuracy)
    for name, cls in [("f1", metric.F1), ("mcc", metric.MCC), ("mae", metric.MAE), ("mse", metric.MSE),
                      ("rmse", metric.RMSE), ("ce", metric.CrossEntropy), ("perplexity", metric.Perplexity),
                      ("pearsonr", metric.PearsonCorrelation), ("loss", metric.Loss),
                      ("nll_loss", metric.NegativeLogLikelihood), ("composite", metric.CompositeEvalMetric)]:
        assert type(metric.create(name)) is cls, name
    with pytest.raises(ValueError, match="Metric must be either callable or in"):
        metric.create("nope")


def test_accuracy_over_updates_reset_and_name_value():
    acc = metric.Accuracy()
    assert math.isnan(acc.get()[1])
    p1, l1 = RNG.rand(10, 4), RNG.randint(0, 4, 10)
    p2, l2 = RNG.rand(6, 4), RNG.randint(0, 4, 6)
    acc.update([nd(l1)], [nd(p1)])
    acc.update(nd(l2), nd(p2))
    expected = ((p1.argmax(1) == l1).sum() + (p2.argmax(1) == l2).sum()) / 16
    assert acc.get() == ("accuracy", pytest.approx(expected))
    assert acc.get_name_value() == [("accuracy", pytest.approx(expected))]
    acc.reset_local()
    assert math.isnan(acc.get()[1]) and acc.get_global()[1] == pytest.approx(expected)
    acc.reset()
    assert math.isnan(acc.get_global()[1])
    acc.update([nd([1, 2])], [nd([1, 0])])   # predictions given as labels
    assert acc.get()[1] == 0.5
    with pytest.raises(ValueError, match="does not match"):
        acc.update([nd([1]), nd([1])], [nd([1])])


def test_topk_accuracy():
    pred, label = RNG.rand(20, 6), RNG.randint(0, 6, 20)
    m = metric.TopKAccuracy(top_k=3)
    m.update([nd(label)], [nd(pred)])
    top3 = np.argsort(-pred, axis=1)[:, :3]
    assert m.get() == ("top_k_accuracy_3", pytest.approx(np.mean([label[i] in top3[i] for i in range(20)])))


def _binary_counts(label, pred):
    p = pred.argmax(1)
    return [int(((p == a) & (label == b)).sum()) for a, b in ((1, 1), (1, 0), (0, 1), (0, 0))]


def _f1(tp, fp, fn, tn):
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def _mcc(tp, fp, fn, tn):
    den = math.sqrt(np.prod([t for t in (tp + fp, tp + fn, tn + fp, tn + fn) if t])) or 1.0
    return (tp * tn - fp * fn) / den


@pytest.mark.parametrize("cls,score", [(metric.F1, _f1), (metric.MCC, _mcc)])
def test_f1_and_mcc_macro_and_micro(cls, score):
    batches = [(RNG.randint(0, 2, 12), RNG.rand(12, 2)) for _ in range(3)]
    macro, micro = cls(), cls(average="micro")
    for label, pred in batches:
        macro.update([nd(label)], [nd(pred)])
        micro.update([nd(label)], [nd(pred)])
    assert macro.get()[1] == pytest.approx(np.mean([score(*_binary_counts(lb, p)) for lb, p in batches]))
    total = np.sum([_binary_counts(lb, p) for lb, p in batches], axis=0)
    assert micro.get()[1] == pytest.approx(score(*total))
    with pytest.raises(ValueError, match="binary"):
        cls().update([nd([0, 1, 2])], [nd(RNG.rand(3, 2))])


def test_regression_metrics():
    batches = [(RNG.randn(8), RNG.randn(8, 1)) for _ in range(2)]
    for cls, f in [(metric.MAE, lambda e: np.abs(e).mean()), (metric.MSE, lambda e: (e ** 2).mean()),
                   (metric.RMSE, lambda e: np.sqrt((e ** 2).mean()))]:
        m = cls()
        for label, pred in batches:
            m.update([nd(label)], [nd(pred)])
        assert m.get()[1] == pytest.approx(np.mean([f(lb[:, None] - p) for lb, p in batches]), rel=1e-5)


def test_cross_entropy_and_perplexity():
    probs = np.exp(RNG.randn(10, 5))
    probs /= probs.sum(1, keepdims=True)
    label = RNG.randint(0, 5, 10)
    nll = -np.log(probs[np.arange(10), label] + 1e-12)
    ce = metric.CrossEntropy()
    ce.update([nd(label)], [nd(probs)])
    assert ce.get() == ("cross-entropy", pytest.approx(nll.mean(), rel=1e-5))
    ppl = metric.Perplexity(ignore_label=None)
    ppl.update([nd(label)], [nd(probs)])
    assert ppl.get()[1] == pytest.approx(math.exp(nll.mean()), rel=1e-5)
    ign = metric.Perplexity(ignore_label=0)
    ign.update([nd(label)], [nd(probs)])
    keep = label != 0
    assert ign.get()[1] == pytest.approx(math.exp(nll[keep].mean()), rel=1e-5)


def test_pearson_macro_and_micro_and_loss():
    batches = [(RNG.randn(10), RNG.randn(10)) for _ in range(3)]
    macro, micro = metric.PearsonCorrelation(), metric.PearsonCorrelation(average="micro")
    for label, pred in batches:
        macro.update([nd(label)], [nd(pred)])
        micro.update([nd(label)], [nd(pred)])
    assert macro.get()[1] == pytest.approx(np.mean([np.corrcoef(p, lb)[0, 1] for lb, p in batches]), rel=1e-5)
    allp, alll = np.concatenate([p for _, p in batches]), np.concatenate([lb for lb, _ in batches])
    assert micro.get()[1] == pytest.approx(np.corrcoef(allp, alll)[0, 1], rel=1e-5)
    loss = metric.Loss()
    loss.update(None, nd([1.0, 2.0, 3.0]))
    loss.update(None, [nd([[6.0]])])
    assert loss.get() == ("loss", 3.0)


def test_composite_and_custom_metric():
    comp = metric.create(["acc", "ce"])
    assert isinstance(comp, metric.CompositeEvalMetric)
    probs, label = np.array([[0.8, 0.2], [0.3, 0.7]]), np.array([0, 0])
    comp.update([nd(label)], [nd(probs)])
    names, values = comp.get()
    assert names == ["accuracy", "cross-entropy"]
    assert values == [0.5, pytest.approx(-(np.log(0.8) + np.log(0.3)) / 2, rel=1e-5)]
    assert comp.get_metric(0).name == "accuracy"
    assert dict(comp.get_name_value())["accuracy"] == 0.5
    comp.reset()
    assert math.isnan(comp.get()[1][0])

    def err(label, pred):
        return float(np.abs(label - pred).sum()), label.size
    custom = metric.np(err)
    custom.update([nd([1.0, 2.0])], [nd([1.5, 2.5])])
    assert custom.get() == ("err", 0.5)


def test_create_from_config_dict_json_and_name_kwargs_pair():
    # MXNet 1.9.1's registry: create(json.dumps(m.get_config())) re-creates m; '[name, kwargs]' too
    import json
    for args in [("acc",), ("f1",), ("mcc",), ("perplexity", -1), ("pearsonr",), ("pcc",), ("nll_loss",), ("loss",)]:
        m = mx.metric.create(*args)
        assert mx.metric.create(json.dumps(m.get_config())).get_config() == m.get_config()
    assert mx.metric.create('["acc", {"axis": 0}]').get_config() == {
        "axis": 0, "metric": "Accuracy", "name": "accuracy", "output_names": None, "label_names": None}
    composite = mx.metric.create(["acc", "f1"])
    config = composite.get_config()
    assert [c["metric"] for c in config["metrics"]] == ["Accuracy", "F1"]
    again = mx.metric.create(json.dumps(config))
    assert [type(m).__name__ for m in again.metrics] == ["Accuracy", "F1"]
    with pytest.raises(NotImplementedError, match="cannot be serialized"):
        mx.metric.create(lambda label, pred: 0.0).get_config()
    with pytest.raises(ValueError, match="expected a 'metric' name"):
        mx.metric.create('{"axis": 0}')


def test_pcc_matches_mxnet_values():
    pcc = mx.metric.create("pcc")
    pcc.update([mx.nd.array([0, 1, 1, 0])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.7, 0.3]])])
    assert pcc.get() == ("pcc", pytest.approx(0.5773502691896258))
    pcc.update([mx.nd.array([0, 2, 3, 1, 2])], [mx.nd.array([0, 2, 1, 1, 3])])     # grows to 4 classes
    assert pcc.get()[1] == pytest.approx(0.5360562674188974)
    pcc.reset_local()
    assert np.isnan(pcc.get()[1]) and pcc.get_global()[1] == pytest.approx(0.5360562674188974)
    pcc.update([mx.nd.array([0, 2, 3, 1, 2])], [mx.nd.array([0, 2, 1, 1, 3])])
    assert pcc.get()[1] == pytest.approx(0.5) and pcc.get_global()[1] == pytest.approx(0.5249415273012283)


def test_macro_f1_mcc_global_averages_per_update_scores():
    # MXNet 1.9.1 (values recorded): 'macro' global = mean of each update's own score
    f1, mcc = mx.metric.F1(), mx.metric.MCC()
    for lab, pr in [([0, 1, 1, 0], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.7, 0.3]]),
                    ([1, 1, 0], [[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])]:
        for m in (f1, mcc):
            m.update([mx.nd.array(lab)], [mx.nd.array(pr)])
            m.reset_local()
    assert f1.get_global()[1] == pytest.approx(0.5833333333333333)
    assert mcc.get_global()[1] == pytest.approx(0.03867513459481292)
