"""User story: I attach ``mx.lab.TensorInspector`` to my hybridized MLP and see per-node statistics
after a call; when a NaN creeps into a layer's weights, the inspector flags the first node that
produced it. ``mx.lab.TimingPanel`` times my block imperative vs hybridized and shows the speed-up."""
import pytest

from lab_harness import MLP, REPO

HAVE = all((REPO / p).exists() for p in ("kernel_lib/hybridlab/lab/inspector.py", "kernel_lib/hybridlab/lab/timing.py",
                                          "src/widgets/inspector.ts", "src/widgets/timing.ts"))
pytestmark = pytest.mark.skipif(not HAVE, reason="TensorInspector / TimingPanel are not in this tree yet")


def test_inspector_shows_statistics_and_flags_the_first_nan(open_notebook):
    nb = open_notebook([MLP + "ins = mx.lab.TensorInspector(net, every=1)\nout = net(x)\nins",
                        "print([n['node'] for n in ins.steps[-1]['nodes']])", "pass"])
    page = nb.page
    rows = page.locator(".hl-inspector .hl-stats-row")
    rows.first.wait_for(timeout=30000)
    nodes = eval(nb.text(1))  # noqa: S307 -- our own printed list of names
    assert len(nodes) >= 3
    text = page.locator(".hl-inspector").inner_text()
    for name in nodes:
        assert name in text, f"expected a statistics row for node {name}, got:\n{text[:800]}"
    assert page.locator(".hl-inspector .hl-nonfinite").count() == 0

    # a NaN in the second Dense layer's weights: its output is the first with a NaN
    nb.run_cell(2, "w = net[1].weight\nw.set_data(mx.nd.full(w.shape, float('nan')))\nout = net(x)\n"
                   "print(ins.first_nonfinite['node'])")
    flagged_node = nb.text(2).strip()
    assert flagged_node == nodes[2] or "dense1" in flagged_node, (flagged_node, nodes)
    flagged = page.locator(".hl-inspector .hl-stats-row.hl-nonfinite")
    flagged.wait_for(timeout=15000)
    assert flagged.count() == 1
    status = page.locator(".hl-inspector .hl-status").inner_text()
    assert flagged_node in status and "NaN" in status


def test_timing_panel_shows_a_speed_up(open_notebook):
    nb = open_notebook([MLP + "panel = mx.lab.TimingPanel(net, x, calls=10)\npanel"])
    page = nb.page
    speedups = page.locator(".hl-timing .hl-mode-row .hl-speedup")
    page.wait_for_function("() => document.querySelectorAll('.hl-timing .hl-mode-row').length >= 4", timeout=60000)
    values = [speedups.nth(i).inner_text() for i in range(speedups.count())]
    hybrid = [v for v in values if v.endswith("x")]
    assert len(hybrid) >= 3, f"expected a speed-up per hybridized mode, got {values}"
    assert all(float(v[:-1]) > 0 for v in hybrid)
