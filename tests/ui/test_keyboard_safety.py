"""User story: my notebook shows every hybridlab widget. I click into them, and out of habit press
JupyterLab's command-mode keys (``d``,``d`` deletes a cell, ``b``/``a`` insert one, ``x`` cuts,
ArrowDown moves to the next cell) while a button, the view selector, the search box, the slider or
a graph node has the focus. Nothing happens to the notebook: the keys belong to the widget. The
graph's own keys work instead: ``/`` searches, ``n`` walks the matches with a count, ``+``
zooms and ``0`` fits again."""
import json

from lab_harness import MLP
from test_ux_layout import OUTSIDE

CELLS = [
    MLP + "view = mx.lab.GraphView(net)\nview",
    "mx.lab.TensorInspector(net, every=1)",
    "x = mx.nd.ones((4, 8))\nmx.lab.TimingPanel(net, x, calls=3)",
    "mx.lab.inspect(net, x)",
    "mx.lab.precheck(net, x)",
    "out = net(mx.nd.ones((5, 8)))\nmx.lab.BuildHistory(net)",
    "net",                                             # the static MIME renderer's graph
]

WIDGETS = [".hl-graph-widget", ".hl-inspector", ".hl-timing", ".hl-dashboard",
           ".hl-report-widget", ".hl-history-widget", ".hl-mime-graph"]
NOTEBOOK_KEYS = ["d", "d", "b", "a", "x", "ArrowDown"]

# the keyboard-reachable controls of each output, tagged so playwright can focus them one by one
TAG_CONTROLS = """(cellIndex) => {
  document.querySelectorAll('[data-hl-probe]').forEach(e => e.removeAttribute('data-hl-probe'));
  const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[cellIndex];
  const all = Array.from(cell.querySelectorAll('.jp-OutputArea button, .jp-OutputArea select, '
      + '.jp-OutputArea input, .jp-OutputArea textarea, .jp-OutputArea [tabindex]'));
  const drawn = all.filter(e => e.closest('svg'));
  const picked = all.filter(e => !e.closest('svg') && !e.disabled).concat(drawn.slice(0, 3));
  picked.forEach((e, i) => e.setAttribute('data-hl-probe', cellIndex + '-' + i));
  return picked.map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
      ? '.' + String(e.className).split(' ')[0] : ''));
}"""

NOTEBOOK_STATE = """() => { const nb = window.jupyterapp.shell.currentWidget.content;
  return { cells: nb.widgets.map(c => c.model.sharedModel.getSource()), active: nb.activeCellIndex,
           mode: nb.mode }; }"""


def test_notebook_keys_never_reach_the_notebook_from_a_widget(open_notebook):
    nb = open_notebook(CELLS)
    page = nb.page
    for css in WIDGETS:
        page.locator(css).first.wait_for(timeout=60000)
    page.locator(".hl-graph-widget .hl-graph[data-hl-state='ready']").first.wait_for(timeout=60000)
    before = page.evaluate(NOTEBOOK_STATE)
    assert len(before["cells"]) == len(CELLS)

    pressed = {}
    for index in range(len(CELLS)):
        controls = page.evaluate(TAG_CONTROLS, index)
        assert controls, f"cell {index}: no focusable control in its output"
        pressed[index] = controls
        for k in range(len(controls)):
            # tagged again each time: a key may redraw the graph (ArrowDown on the view selector)
            if len(page.evaluate(TAG_CONTROLS, index)) <= k:
                continue
            page.locator(f"[data-hl-probe='{index}-{k}']").evaluate("e => e.focus()")
            # focus inside an output puts the notebook in command mode with this cell active
            state = page.evaluate(NOTEBOOK_STATE)
            assert state["mode"] == "command" and state["active"] == index, (index, controls[k], state)
            for key in NOTEBOOK_KEYS:
                page.keyboard.press(key)
            after = page.evaluate(NOTEBOOK_STATE)
            assert after["cells"] == before["cells"], f"cell {index}, {controls[k]}: the notebook changed"
            assert after["active"] == index, f"cell {index}, {controls[k]}: ArrowDown moved to another cell"
    # every kind of control was probed somewhere
    kinds = {c.split(".")[0] for cs in pressed.values() for c in cs}
    assert {"button", "select", "input", "g", "div"} <= kinds, kinds
    assert page.evaluate(NOTEBOOK_STATE)["cells"] == before["cells"]
    assert nb.dialogs == []


def test_the_graph_has_its_own_keys(open_notebook):
    nb = open_notebook([MLP + "view = mx.lab.GraphView(net)\nview"])
    page = nb.page
    root = ".jp-Cell:first-child .hl-graph-widget .hl-graph"
    page.locator(f"{root}[data-hl-state='ready']").wait_for(timeout=60000)
    area = page.locator(f"{root} .hl-graph-area")
    area.focus()
    scale = lambda: page.eval_on_selector(  # noqa: E731
        f"{root} .hl-viewport", "g => parseFloat(/scale\\(([^)]+)\\)/.exec(g.getAttribute('transform'))[1])")
    page.keyboard.press("0")                              # fit: the whole graph in view
    fitted = scale()
    assert page.locator(root).evaluate(OUTSIDE) == []
    page.keyboard.press("+")
    assert abs(scale() - fitted * 1.25) < 1e-6
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("0")
    assert abs(scale() - fitted) < 1e-6

    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.classList.contains('hl-search')")
    page.keyboard.type("dense")
    count = page.locator(f"{root} .hl-match-count")
    total = int(count.get_attribute("data-hl-count"))
    assert total >= 6 and count.text_content() == f"{total} matches"
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector({json.dumps(root + ' .hl-match-count')}).textContent"
                           f" === '1 of {total}'")
    area.focus()
    page.keyboard.press("n")
    page.wait_for_function(f"() => document.querySelector({json.dumps(root + ' .hl-match-count')}).textContent"
                           f" === '2 of {total}'")
    focused = page.evaluate("() => document.activeElement.getAttribute('data-hl-node')")
    assert focused and "dense" in focused
    page.keyboard.press("Enter")                                    # opens its details
    page.locator(f"{root} [data-hl-details={json.dumps(focused)}]").wait_for(timeout=5000)
    page.keyboard.press("Escape")
    assert page.evaluate("() => document.activeElement.classList.contains('hl-graph-area')")
    assert nb.cell_count() == 1


def test_dashboard_tabs_and_inspector_rows_work_from_the_keyboard(open_notebook):
    nb = open_notebook([MLP + "x = mx.nd.ones((4, 8))\nboard = mx.lab.inspect(net, x, every=1, calls=3)\n"
                                "for _ in range(2):\n    out = net(x)\nboard"])
    page = nb.page
    tabs = page.locator(".hl-dashboard [role='tablist'] [role='tab']")
    tabs.first.wait_for(timeout=60000)
    assert tabs.count() == 2
    assert [tabs.nth(i).get_attribute("aria-selected") for i in range(2)] == ["true", "false"]
    tabs.first.focus()
    page.keyboard.press("ArrowRight")                     # to the timing tab, which shows its panel
    assert page.evaluate("() => document.activeElement.textContent") == "Timing"
    assert tabs.nth(1).get_attribute("aria-selected") == "true"
    panel = page.locator("#" + tabs.nth(1).get_attribute("aria-controls"))
    assert panel.is_visible() and panel.get_attribute("role") == "tabpanel"
    page.keyboard.press("ArrowLeft")
    assert tabs.first.get_attribute("aria-selected") == "true"

    # the inspector's slider steps back through the calls with the arrow keys; rows open with Enter
    label = page.locator(".hl-dashboard .hl-step-label")
    last = label.text_content()
    page.locator(".hl-dashboard input.hl-step-slider").focus()
    page.keyboard.press("ArrowLeft")
    assert label.text_content() != last
    row = page.locator(".hl-dashboard .hl-stats-row").nth(1)
    tensor = row.get_attribute("data-hl-tensor")
    row.focus()
    page.keyboard.press("Enter")
    assert page.locator(".hl-dashboard .hl-stats-row.hl-selected").get_attribute("data-hl-tensor") == tensor
    assert page.locator(".hl-dashboard .hl-inspector .hl-detail-title").first.text_content().startswith(tensor)
    assert nb.cell_count() == 1
