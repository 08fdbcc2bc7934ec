"""User stories of the UX probe, checked on what the page shows (computed styles and geometry,
not only DOM classes):

- the inspector's and the timing panel's stylesheet is loaded: a NaN row is coloured, histograms
  have height, the preview heat map has cells, the latency column is drawn, the idle progress bar
  is hidden;
- in an 800 px window with the file browser open, the graph keeps most of the output's width (the
  details go below it) and wide tables scroll sideways;
- a plain wheel over the graph scrolls the notebook, Ctrl + wheel zooms, Fit brings it all back;
- the generated source is not wrapped mid-identifier and its view has no empty details panel nor
  live graph-only buttons; the backward graph and an expanded ResNet-18 open fitted in view; each
  pass says what it changed; single-child Block wrappers are one box and "1 node" is singular.
"""
import json

from lab_harness import MLP

LENET = """import hybridlab as mx
from hybridlab import autograd
from hybridlab.gluon import nn
net = nn.HybridSequential(prefix='lenet_')
with net.name_scope():
    net.add(nn.Conv2D(channels=6, kernel_size=5, activation='relu'), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=16, kernel_size=3, activation='relu'), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Flatten(), nn.Dense(120, activation='relu'), nn.Dense(84, activation='relu'), nn.Dense(10))
net.initialize()
net.hybridize()
x = mx.nd.random.uniform(shape=(4, 1, 28, 28))
x.attach_grad()
with autograd.record():
    y = net(x)
y.backward()
view = mx.lab.GraphView(net)
view"""

RESNET = """import hybridlab as mx
from hybridlab.gluon.model_zoo import vision
net = vision.resnet18_v1()
net.initialize()
net.hybridize()
out = net(mx.nd.random.uniform(shape=(1, 3, 224, 224)))
view = mx.lab.GraphView(net)
view"""

GRAPH = ".hl-graph-widget .hl-graph"
READY = f"{GRAPH}[data-hl-state='ready']"

# [name, ...] of drawn nodes and groups whose box is not inside the graph area
OUTSIDE = """(root) => { const a = root.querySelector('.hl-graph-area').getBoundingClientRect(); const out = [];
  root.querySelectorAll('[data-hl-node], [data-hl-group]').forEach(e => { const r = e.getBoundingClientRect();
    if (r.left < a.left - 1 || r.right > a.right + 1 || r.top < a.top - 1 || r.bottom > a.bottom + 1) {
      out.push(e.getAttribute('data-hl-node') || e.getAttribute('data-hl-group')); } });
  return out; }"""

SCALE = """(root) => { const t = root.querySelector('.hl-viewport').getAttribute('transform');
  return parseFloat(/scale\\(([^)]+)\\)/.exec(t)[1]); }"""


# the on-screen font size (px: computed size x the drawing's zoom) of the drawn labels inside the area
LABEL_HEIGHTS = """(root) => { const a = root.querySelector('.hl-graph-area').getBoundingClientRect();
  return Array.from(root.querySelectorAll('.hl-graph-svg text')).filter(t => {
      const r = t.getBoundingClientRect();
      return r.bottom > a.top && r.top < a.bottom && r.right > a.left && r.left < a.right && r.height > 0; })
    .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a); }"""


def assert_fitted_or_readable(root):
    """A drawing opens fitted into view, or, when fitting would make its labels unreadable, with
    every visible label at least 9 px and the minimap showing where the view is."""
    if root.evaluate(OUTSIDE) == []:
        return
    heights = root.evaluate(LABEL_HEIGHTS)
    assert heights and min(heights) >= 9 - 1e-3, min(heights or [0])
    assert root.locator(".hl-minimap").get_attribute("data-hl-shown") == "true"


def theme_color(page, var):
    """The computed colour of the theme variable ``var`` (as an rgb() string)."""
    return page.evaluate("""(v) => { const d = document.createElement('div'); d.style.color = `var(${v})`;
        document.body.appendChild(d); const c = getComputedStyle(d).color; d.remove(); return c; }""", var)


def style(locator, prop):
    return locator.evaluate(f"(e) => getComputedStyle(e).{prop}")


def box(locator):
    return locator.evaluate("(e) => { const r = e.getBoundingClientRect(); "
                            "return {x: r.x, y: r.y, w: r.width, h: r.height}; }")


def narrow_with_file_browser(page, width=800):
    page.set_viewport_size({"width": width, "height": 1000})
    page.evaluate("() => { window.jupyterapp.shell.activateById('filebrowser'); }")
    page.wait_for_function("() => { const f = document.getElementById('filebrowser'); "
                           "return !!f && f.getBoundingClientRect().width > 100; }", timeout=10000)
    page.wait_for_timeout(500)  # the notebook reflows


def test_inspector_styles_show_nan_rows_histogram_and_heat_map(open_notebook):
    nb = open_notebook([MLP + "ins = mx.lab.TensorInspector(net, every=1)\nout = net(x)\nins", "pass"])
    page = nb.page
    page.locator(".hl-inspector .hl-stats-row").first.wait_for(timeout=30000)
    nb.run_cell(1, "w = net[1].weight\nw.set_data(mx.nd.full(w.shape, float('nan')))\nout = net(x)")
    flagged = page.locator(".hl-inspector .hl-stats-row.hl-nonfinite")
    flagged.wait_for(timeout=15000)

    error, warn = theme_color(page, "--jp-error-color1"), theme_color(page, "--jp-warn-color1")
    normal = style(page.locator(".hl-inspector .hl-stats-row:not(.hl-nonfinite):not(.hl-has-nonfinite)").first, "color")
    assert style(flagged, "color") == error != normal
    assert int(style(flagged, "fontWeight")) >= 600
    later = page.locator(".hl-inspector .hl-stats-row.hl-has-nonfinite")
    assert later.count() >= 1, "the rows after the first NaN carry NaN too"
    assert style(later.first, "color") == warn != normal

    # the flagged tensor's details: a histogram with height and a heat map with cells
    hist = page.locator(".hl-inspector .hl-tensor-details .hl-histogram").first
    hist.wait_for(timeout=5000)
    page.locator(".hl-inspector .hl-stats-row").first.click()
    hist = page.locator(".hl-inspector .hl-tensor-details .hl-histogram").first
    assert box(hist)["h"] >= 40 and box(hist)["w"] >= 200
    heights = hist.locator(".hl-hist-bar").evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    assert max(heights) >= 40, heights
    cells = page.locator(".hl-inspector .hl-heat-cell")
    assert cells.count() > 0
    cell = box(cells.first)
    assert cell["w"] == 8 and cell["h"] == 8, cell


def test_timing_panel_styles_and_narrow_window(open_notebook):
    nb = open_notebook([MLP + "panel = mx.lab.TimingPanel(net, x, calls=5)\npanel"])
    page = nb.page
    page.wait_for_function("() => document.querySelectorAll('.hl-timing .hl-mode-row').length >= 4", timeout=60000)
    page.wait_for_selector(".hl-timing[data-hl-running='false']", timeout=30000)
    assert style(page.locator(".hl-timing .hl-progress"), "visibility") == "hidden"
    hist = page.locator(".hl-timing .hl-mode-row .hl-latency-hist").first
    assert box(hist)["h"] >= 18 and box(hist)["w"] >= 100
    heights = hist.locator(".hl-hist-bar").evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    assert max(heights) >= 18, heights

    narrow_with_file_browser(page)
    scroller = page.locator(".hl-timing .hl-table-scroll").first
    table = scroller.locator("table")
    assert style(scroller, "overflowX") == "auto"
    panel = box(page.locator(".hl-timing"))
    assert box(scroller)["w"] <= panel["w"] + 1
    # the table keeps its columns (no wrapped cells) and scrolls sideways inside the panel
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth"), (box(table), box(scroller))
    assert style(table.locator("td").first, "whiteSpace") == "nowrap"


def test_graph_view_at_800px_and_wheel_navigation(open_notebook):
    tall = "print('\\n'.join(str(i) for i in range(300)))"
    nb = open_notebook([MLP + "view = mx.lab.GraphView(net)\nview", tall])
    page = nb.page
    page.wait_for_selector(READY, timeout=60000)
    root = page.locator(GRAPH)
    area, details = root.locator(".hl-graph-area"), root.locator(".hl-details")
    wide_area, wide_details = box(area), box(details)
    assert wide_details["x"] >= wide_area["x"] + wide_area["w"] - 1, "details beside the graph in a wide window"

    narrow_with_file_browser(page)
    page.wait_for_timeout(300)
    g, a, d = box(root), box(area), box(details)
    assert a["w"] >= 0.9 * g["w"], f"the graph area is squeezed: {a} in {g}"
    assert d["y"] >= a["y"] + a["h"] - 1, f"the details go below the graph when narrow: {d} vs {a}"
    assert_fitted_or_readable(root)  # re-fitted, or readable at 100 %, in the narrower area

    # a plain wheel over the graph scrolls the notebook and leaves the zoom alone
    page.set_viewport_size({"width": 1400, "height": 700})
    page.wait_for_timeout(300)
    root.scroll_into_view_if_needed()
    scroller = "() => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer').scrollTop"
    scale0 = root.evaluate(SCALE)
    top0 = page.evaluate(scroller)
    a = box(area)
    page.mouse.move(a["x"] + a["w"] / 2, a["y"] + min(a["h"], 150) / 2)
    page.mouse.wheel(0, 200)
    page.wait_for_timeout(400)
    assert page.evaluate(scroller) > top0, "the wheel did not scroll the notebook"
    assert root.evaluate(SCALE) == scale0
    assert "hl-hint-flash" in root.locator(".hl-zoom-hint").get_attribute("class")
    assert "wheel" in root.locator(".hl-zoom-hint").inner_text()

    # Ctrl + wheel zooms; Fit brings the whole graph back into view
    area.scroll_into_view_if_needed()
    a = box(area)
    page.mouse.move(a["x"] + a["w"] / 2, a["y"] + min(a["h"], 150) / 2)
    top1 = page.evaluate(scroller)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    page.wait_for_timeout(300)
    assert root.evaluate(SCALE) > scale0 * 1.2
    assert page.evaluate(scroller) == top1, "Ctrl + wheel must not scroll the notebook"
    root.locator("button.hl-fit").click()
    assert root.evaluate(SCALE) <= scale0
    assert root.evaluate(OUTSIDE) == []


def test_lenet_source_backward_and_passes(open_notebook):
    nb = open_notebook([LENET])
    page = nb.page
    page.wait_for_selector(READY, timeout=60000)
    root = page.locator(GRAPH)
    select = root.locator("select.hl-view-select")
    options = select.locator("option").evaluate_all("els => els.map(e => [e.value, e.textContent])")
    passes = [label for value, label in options if value.startswith("pass:")]
    assert passes, options
    for label in passes:
        assert label.endswith(")") and ("no change" in label or "→" in label or "changed" in label), label

    # the backward graph opens readable: fitted, or at 100 % from its top with the minimap
    select.select_option("backward")
    page.wait_for_selector(READY, timeout=60000)
    assert root.locator("[data-hl-node], [data-hl-group]").count() > 10
    assert_fitted_or_readable(root)

    # a pass view says what changed
    select.select_option([v for v, _ in options if v.startswith("pass:")][0])
    page.wait_for_selector(READY, timeout=60000)
    assert "Pass " in root.locator(".hl-status").inner_text()

    # the generated source: whole lines scrolled sideways, no empty details, no dead buttons
    select.select_option("source")
    pre = root.locator("pre.hl-source")
    pre.wait_for(timeout=5000)
    assert style(pre, "whiteSpace") == "pre"
    assert style(pre, "wordBreak") == "normal"
    assert pre.evaluate("e => e.scrollWidth > e.clientWidth"), "long lines scroll, they do not wrap"
    assert style(root.locator(".hl-details"), "display") == "none"
    assert box(pre)["w"] >= 0.95 * box(root)["w"]
    for b in root.locator(".hl-toolbar button:not(.hl-open-tab)").all():
        assert b.is_disabled(), b.inner_text()
    assert root.locator("input.hl-search").is_disabled()

    # highlighted by JupyterLab's CodeMirror (Python), and linked both ways to the graph
    page.wait_for_function("() => document.querySelectorAll('.hl-graph pre.hl-source .hl-source-line span[class]').length > 10",
                           timeout=10000)
    line = root.locator(".hl-source-line[data-hl-node]").nth(3)
    node = line.get_attribute("data-hl-node")
    line.click()
    page.wait_for_selector(f"{READY}[data-hl-view='graph']", timeout=30000)
    assert root.locator(".hl-graph-svg .hl-node.hl-selected").get_attribute("data-hl-node") == node
    root.locator(".hl-show-source").click()
    current = root.locator(".hl-source-line.hl-source-current")
    current.first.wait_for(timeout=10000)
    assert {e.get_attribute("data-hl-node") for e in current.all()} == {node}


def test_resnet18_scope_tree_and_fitted_expansion(open_notebook):
    nb = open_notebook([RESNET])
    page = nb.page
    page.wait_for_selector(READY, timeout=90000)
    root = page.locator(GRAPH)
    assert_fitted_or_readable(root)

    # collapse all, open the feature extractor: its stages, named without repeated prefixes
    root.locator("button", has_text="Collapse all").click()
    page.wait_for_selector(READY, timeout=60000)
    groups = lambda: root.locator("[data-hl-group]").evaluate_all(  # noqa: E731
        "els => els.map(e => [e.getAttribute('data-hl-group'), e.querySelector('.hl-node-name').textContent + "
        "' | ' + e.querySelector('.hl-node-op').textContent])")
    feature = next(g for g, _ in groups() if g.count("/") == 1 and not g.endswith("dense0"))
    root.locator(f"[data-hl-group={json.dumps(feature)}]").click()
    page.wait_for_selector(READY, timeout=60000)
    texts = [t for _, t in groups()]
    names = [t.split(" | ")[0] for t in texts]
    assert "▸ stage1" in names, texts
    assert not any("resnetv10" in n or " / " in n for n in names), texts
    counts = [t.split(" | ")[1] for t in texts]
    assert "1 nodes" not in counts, texts
    assert "1 node" in counts, texts

    # Expand all: the whole expanded ResNet-18 opens readable; Fit puts all of it into view
    root.locator("button", has_text="Expand all").click()
    page.wait_for_function("() => document.querySelectorAll('.hl-graph-widget [data-hl-node]').length > 150",
                           timeout=60000)
    page.wait_for_selector(READY, timeout=60000)
    assert_fitted_or_readable(root)
    root.locator("button.hl-fit").click()
    assert root.evaluate(OUTSIDE) == []
