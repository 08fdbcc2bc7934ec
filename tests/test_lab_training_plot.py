"""TrainingPlot: the curves a training loop adds, their limits and their saved snapshot."""
import math

import pytest

from hybridlab.lab.training_plot import TrainingPlot


def test_add_records_points_per_metric_and_the_status_names_the_latest():
    plot = TrainingPlot("loss", "accuracy", title="digits")
    assert plot.status == "digits: no values yet"
    plot.add(loss=2.0)
    plot.add(loss=1.0, accuracy=0.5)
    plot.add(step=10, loss=0.5)
    assert plot.series == {"loss": [[0, 2.0], [1, 1.0], [10, 0.5]], "accuracy": [[1, 0.5]]}
    assert plot.status == "digits: step 10: loss 0.5, accuracy 0.5"
    assert plot.latest("loss") == 0.5 and plot.latest("accuracy") == 0.5
    plot.add(loss=float("nan"))                       # kept: the view leaves it out and counts it
    assert math.isnan(plot.latest("loss")) and plot.series["loss"][-1][0] == 11


def test_bad_use_says_what_was_expected():
    with pytest.raises(ValueError, match="expected the metric names"):
        TrainingPlot()
    with pytest.raises(ValueError, match="max_points expected an int >= 10, got 3"):
        TrainingPlot("loss", max_points=3)
    plot = TrainingPlot("loss")
    with pytest.raises(KeyError, match="unknown metric 'acc'; expected one of \\['loss'\\]"):
        plot.add(acc=1.0)


def test_long_runs_are_thinned_keeping_the_newest_point():
    plot = TrainingPlot("loss", max_points=10)
    for step in range(100):
        plot.add(loss=float(step))
    points = plot.series["loss"]
    assert len(points) <= 10 and points[-1] == [99, 99.0] and points[0][0] == 0
    assert [p[0] for p in points] == sorted(p[0] for p in points)


def test_the_saved_snapshot_is_text_only():
    plot = TrainingPlot("<b>loss</b>")
    plot.add(**{"<b>loss</b>": 0.25})
    html = plot._repr_mimebundle_()["text/html"]
    assert "&lt;b&gt;loss&lt;/b&gt;" in html and "<b>loss" not in html and "0.25" in html
