"""User story: my kernel restarts (or the widget's comm dies) while a graph view is on screen: the
view keeps the last graph and says it is disconnected, instead of going blank."""

CELLS = ["""import hybridlab as mx
from hybridlab.gluon import nn
net = nn.HybridSequential()
net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
net.initialize()
net.hybridize()
view = mx.lab.GraphView(net)
out = net(mx.nd.ones((2, 3)))
view"""]


def test_a_kernel_restart_leaves_a_clear_disconnected_state(open_notebook):
    nb = open_notebook(CELLS)
    page = nb.page
    page.wait_for_selector(".hl-graph-widget .hl-graph[data-hl-state='ready']", timeout=60000)
    drawn = page.locator(".hl-graph-widget [data-hl-node]").count()
    assert drawn > 0
    page.evaluate("() => { window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart(); }")
    page.wait_for_selector(".hl-graph-widget .hl-graph[data-hl-state='disconnected']", timeout=30000)
    status = page.locator(".hl-graph-widget .hl-status").inner_text()
    assert "Disconnected from the kernel" in status
    assert page.locator(".hl-graph-widget [data-hl-node]").count() == drawn  # the last graph stays
