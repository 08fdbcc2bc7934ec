"""User story: I hybridize a model-zoo ResNet-50 v2, train one step and open its graph. It opens on
its stages with readable labels (every label on screen at least 9 px) and a minimap, each stage's
identical bottleneck units folded into one series box, which I open and fold again; I search
"conv", see how many nodes match and step through them, the view moving to each; I trace a node's
inputs and outputs; I colour the boxes by measured time per call and by output size; I click the
minimap to jump; I open the graph in a tab of its own, and download the drawing as SVG: the file
holds every node the view draws. The backward graph is folded by Block like the forward one."""
import json
import pathlib
import xml.etree.ElementTree as ET

from lab_harness import RESNET50
from test_ux_layout import LABEL_HEIGHTS

CELL = RESNET50 + """from hybridlab.lab import graph_json
g = graph_json(net)
print(json.dumps([len(g['nodes']), len(g['backward']['nodes']),
                  sum('conv' in (n['name'] + ' ' + n['op']).lower() for n in g['nodes'])]))
view = mx.lab.GraphView(net)
_ = view.profile(x, calls=1)
view"""

ARTIFACTS = pathlib.Path(__file__).resolve().parent / "artifacts"
ROOT = ".jp-Notebook .hl-graph-widget .hl-graph"
READY = f"{ROOT}[data-hl-state='ready']"
TRANSFORM = f"() => document.querySelector({json.dumps(ROOT + ' .hl-viewport')}).getAttribute('transform')"
COUNT = f"() => document.querySelector({json.dumps(ROOT + ' .hl-match-count')}).textContent"
DRAWN = "(root) => Array.from(root.querySelectorAll('.hl-graph-svg [data-hl-node]')).map(e => e.getAttribute('data-hl-node'))"
CENTRED = """(root, name) => { const a = root.querySelector('.hl-graph-area').getBoundingClientRect();
  const n = root.querySelector('.hl-graph-svg [data-hl-node="' + CSS.escape(name) + '"]');
  if (!n) { return false; } const r = n.getBoundingClientRect();
  return r.left >= a.left && r.right <= a.right && r.top >= a.top && r.bottom <= a.bottom; }"""


def test_resnet50_is_navigable(open_notebook, tmp_path):
    nb = open_notebook([CELL])
    page = nb.page
    page.wait_for_selector(READY, timeout=120000)
    forward, backward, convs = json.loads(nb.text(0).splitlines()[0])
    root = page.locator(ROOT)
    assert forward > 400 and backward > forward          # every op's gradient (BatchNorm's is one op)

    # it opens on its stages, readable, with the minimap showing the whole model
    status = root.locator(".hl-status").text_content()
    assert f"{forward} nodes" in status and "collapsed" in status
    groups = root.locator(".hl-graph-svg [data-hl-group]").count()
    assert 8 <= groups + root.locator(".hl-graph-svg [data-hl-node]").count() <= 80
    heights = root.evaluate(LABEL_HEIGHTS)
    assert heights and min(heights) >= 9 - 1e-3, min(heights)
    minimap = root.locator(".hl-minimap")
    assert minimap.get_attribute("data-hl-shown") == "true"
    assert root.evaluate(CENTRED, "data")                              # it opens where the data comes in
    names = root.locator(".hl-graph-svg .hl-group .hl-node-name").all_text_contents()
    assert not any("resnetv20" in n for n in names), names            # no repeated prefixes

    # each stage's identical units after its first are one series box: 3, 4, 6 and 3 units
    series = root.locator(".hl-graph-svg .hl-group.hl-series")
    assert sorted(series.locator(".hl-node-name").all_text_contents()) == sorted(
        ["▸ 2× bottleneckv2_[1–2]", "▸ 3× bottleneckv2_[1–3]",
         "▸ 5× bottleneckv2_[1–5]", "▸ 2× bottleneckv2_[1–2]"])
    folded = root.locator(".hl-graph-svg [data-hl-group]").count()
    root.screenshot(path=str(ARTIFACTS / "resnet50-series.png"))
    series.filter(has_text="5×").dispatch_event("click")                 # stage3 is below the view
    page.wait_for_selector(READY, timeout=30000)
    assert root.locator(".hl-graph-svg [data-hl-group]").count() == folded + 4   # the 5 units, drawn
    open_series = root.locator(".hl-graph-svg .hl-cluster.hl-series .hl-cluster-label")
    assert open_series.count() == 1 and "5× bottleneckv2_[1–5]" in open_series.text_content()
    open_series.dispatch_event("click")
    page.wait_for_selector(READY, timeout=30000)
    assert root.locator(".hl-graph-svg [data-hl-group]").count() == folded

    # trace a node: what it reads from and what reads from it, the rest dimmed; t again stops
    node = root.locator(".hl-graph-svg [data-hl-node]").nth(3)
    node.click()
    node.press("t")
    bar = root.locator(".hl-trace-bar")
    assert bar.is_visible() and "Tracing" in bar.text_content() and "read by" in bar.text_content()
    assert root.locator(".hl-graph-svg.hl-tracing").count() == 1
    assert root.locator(".hl-graph-svg .hl-trace-down").count() > 0
    root.screenshot(path=str(ARTIFACTS / "resnet50-trace.png"))
    node.press("t")
    assert not bar.is_visible() and root.locator(".hl-graph-svg.hl-tracing").count() == 0

    # colour by the measured time per call (view.profile), with a key; then by output size
    root.locator("select.hl-colour-select").select_option("time")
    legend = root.locator(".hl-colour-legend")
    assert legend.is_visible() and "time per call" in legend.text_content()
    timed = root.locator(".hl-graph-svg [data-hl-value]").count()
    assert timed >= folded                                              # every Block box holds timed ops
    root.screenshot(path=str(ARTIFACTS / "resnet50-colour-time.png"))
    root.locator("select.hl-colour-select").select_option("size")
    assert "output size" in legend.text_content()
    root.locator("select.hl-colour-select").select_option("family")
    assert not legend.is_visible()

    # search: a count, then next/previous move the view to each match
    root.locator(".hl-search").fill("conv")
    assert page.evaluate(COUNT) == f"{convs} matches"
    root.locator(".hl-search").press("Enter")
    page.wait_for_function(f"() => ({COUNT})() === '1 of {convs}'", timeout=30000)
    page.wait_for_selector(READY, timeout=30000)
    first = root.evaluate("r => r.querySelector('.hl-graph-svg .hl-selected').getAttribute('data-hl-node')")
    assert "conv" in first.lower() and root.evaluate(CENTRED, first)      # zoomed to the match
    before = page.evaluate(TRANSFORM)
    root.locator(".hl-match-next").click()
    page.wait_for_function(f"() => ({COUNT})() === '2 of {convs}'", timeout=30000)
    page.wait_for_selector(READY, timeout=30000)
    second = root.evaluate("r => r.querySelector('.hl-graph-svg .hl-selected').getAttribute('data-hl-node')")
    assert second != first and page.evaluate(TRANSFORM) != before and root.evaluate(CENTRED, second)
    root.locator(".hl-match-prev").click()
    page.wait_for_function(f"() => ({COUNT})() === '1 of {convs}'", timeout=30000)

    # the minimap: a click jumps the view there
    root.locator(".hl-search").fill("")
    moved_from = page.evaluate(TRANSFORM)
    box = minimap.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.9)
    assert page.evaluate(TRANSFORM) != moved_from

    # export: the SVG file holds every node the view draws
    with page.expect_download() as dl:
        root.locator(".hl-export-svg").click()
    path = tmp_path / "resnet.svg"
    dl.value.save_as(path)
    assert dl.value.suggested_filename == "resnetv20.svg"
    tree = ET.parse(path)
    in_file = {e.get("data-hl-node") for e in tree.iter() if e.get("data-hl-node")}
    assert in_file == set(root.evaluate(DRAWN)) and in_file

    # the full view in a tab of its own: the same graph, taller than the notebook's view
    root.locator(".hl-open-tab").click()
    tab = page.locator(".hl-graph-tab .hl-graph[data-hl-state='ready']")
    tab.wait_for(timeout=60000)
    assert page.locator(".lm-TabBar-tab", has_text="resnetv20: graph").count() == 1
    tab_area = page.locator(".hl-graph-tab .hl-graph-area").bounding_box()
    assert tab_area["height"] > 600
    assert f"{forward} nodes" in page.locator(".hl-graph-tab .hl-status").text_content()

    # the backward graph is folded by Block too, and readable
    page.locator(".lm-TabBar-tab", has_text="resnetv20: graph").locator(".lm-TabBar-tabCloseIcon").click()
    root.locator("select.hl-view-select").select_option("backward")
    page.wait_for_function(f"() => document.querySelector({json.dumps(ROOT)}).dataset.hlState === 'ready' && "
                           f"document.querySelector({json.dumps(ROOT + ' .hl-status')}).textContent"
                           f".includes('{backward} nodes')", timeout=60000)
    assert root.locator(".hl-graph-svg [data-hl-group]").count() > 0
    heights = root.evaluate(LABEL_HEIGHTS)
    assert heights and min(heights) >= 9 - 1e-3
    assert nb.dialogs == []
