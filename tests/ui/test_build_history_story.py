"""User story: my MXNet 2.0 block reshapes with ``x.shape[0]``. I hybridize it and call it with a batch
of 2, then of 3 (the shape guard breaks: it traces again), then turn on ``static_alloc``, and look at
``mx.lab.BuildHistory(net)``: three builds, each with why it was built (the second names the shape
read that changed), the third with its flags. The last two are compared by default; I pick the
first two instead and see their graphs side by side, the reshape node marked as changed on both
(its ``newshape`` holds the batch size), and a summary saying so."""
import json

BLOCK = """import json
import hybridlab as mx
class Flatten2(mx.gluon.HybridBlock):
    def forward(self, x):
        return mx.npx.relu(x.reshape((x.shape[0], -1)))
net = Flatten2()
net.hybridize()
out = net(mx.np.ones((2, 3, 4)))
history = mx.lab.BuildHistory(net)
history"""

BATCH_OF_3 = "out = net(mx.np.ones((3, 3, 4)))"
STATIC_ALLOC = "net.hybridize(static_alloc=True)\nout = net(mx.np.ones((3, 3, 4)))"
RESHAPE = "print(json.dumps([n['name'] for n in history.builds[0]['graph']['nodes'] if n['op'] == '_np_reshape']))"

WIDGET = ".hl-history-widget"
ROWS = f"{WIDGET} tr.hl-history-row"


def _row(nb, index):
    return nb.page.locator(f'{ROWS}[data-hl-build="{index}"]')


def _pressed(nb, side):
    """The builds whose ``side`` button (``a`` or ``b``) is pressed."""
    return nb.page.eval_on_selector_all(
        ROWS, "(rows, side) => rows.filter(r => r.querySelector('.hl-pick-' + side)"
              ".getAttribute('aria-pressed') === 'true').map(r => r.dataset.hlBuild)", side)


def test_three_builds_listed_and_two_compared_side_by_side(open_notebook):
    nb = open_notebook([BLOCK, BATCH_OF_3, STATIC_ALLOC, RESHAPE])
    nb.page.wait_for_function(f"() => document.querySelectorAll({json.dumps(ROWS)}).length === 3", timeout=60000)
    nb.wait_for_status("3 builds; the last: hybridize flags changed", root=WIDGET, timeout=15000)
    reshape, = nb.json_output(3)

    # one row per build with why it was built; the second names the shape read that changed
    reasons = nb.page.locator(f"{ROWS} .hl-history-reason").all_text_contents()
    assert reasons[0] == "first call" and reasons[2] == "hybridize flags changed"
    assert reasons[1].startswith("shape read at ") and reasons[1].endswith("changed: data.shape[0] 2 -> 3")
    flags = nb.page.locator(f"{ROWS} .hl-history-flags").all_text_contents()
    assert flags[:2] == ["", ""] and "static_alloc=True" in flags[2]
    assert nb.page.locator(f"{ROWS} .hl-history-retraced").all_text_contents()[1] == "yes"

    # by default the last two builds are compared
    assert _pressed(nb, "a") == ["1"] and _pressed(nb, "b") == ["2"]

    # pick A = #0 and B = #1: both graphs drawn, side by side
    _row(nb, 0).locator(".hl-pick-a").click()
    _row(nb, 1).locator(".hl-pick-b").click()
    assert _pressed(nb, "a") == ["0"] and _pressed(nb, "b") == ["1"]
    sides = {s: nb.page.locator(f"{WIDGET} .hl-history-side[data-hl-side='{s}']") for s in "ab"}
    for s, build in (("a", 0), ("b", 1)):
        sides[s].locator(".hl-graph[data-hl-state='ready']").wait_for(timeout=30000)
        caption = sides[s].locator(".hl-history-caption").text_content()
        assert caption.startswith(f"{s.upper()}: build #{build} (")
    box_a, box_b = sides["a"].bounding_box(), sides["b"].bounding_box()
    assert box_a["x"] + box_a["width"] <= box_b["x"] and abs(box_a["y"] - box_b["y"]) < 2

    # the reshape node is marked changed on both sides: its newshape holds the batch size
    for s in "ab":
        node = sides[s].locator(f"[data-hl-node={json.dumps(reshape)}]")
        node.wait_for(timeout=10000)
        assert node.get_attribute("data-hl-mark") == "changed"
        assert "hl-mark-changed" in node.get_attribute("class")
        assert "newshape (2, -1) → (3, -1)" in node.locator("title").text_content()
    assert nb.page.locator(f"{WIDGET} [data-hl-mark]").count() == 2          # nothing else differs
    summary = nb.page.locator(f"{WIDGET} .hl-history-diff").text_content()
    assert summary == f"build #0 → #1: 0 added, 0 removed, 1 changed: {reshape} (newshape (2, -1) → (3, -1))"

    sides["a"].scroll_into_view_if_needed()                                # for the screenshot
    assert nb.dialogs == []
