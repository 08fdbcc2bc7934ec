"""User story: I work in JupyterLab's dark theme as often as in the light one. Lesson 03's graph view,
tensor inspector, timing panel and dashboard follow the theme: their backgrounds and text take the
theme's colours (text stays readable on its background), and each is screenshotted in both themes
(tests/ui/artifacts/theme-<widget>-<light|dark>.png) for a person to look at."""
import nbformat

from conftest import ARTIFACTS
from lab_harness import REPO

LESSON = REPO / "notebooks" / "03-see-it-in-jupyterlab.ipynb"
WIDGETS = {"graph": ".jp-Cell .hl-graph-widget", "inspector": ".hl-inspector", "timing": ".hl-timing",
           "dashboard": ".hl-dashboard"}

# the relative luminance contrast (WCAG) of an element's text colour against the nearest opaque background
CONTRAST = """(el) => { const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let bg = null; for (let e = el; e && !bg; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) { bg = c.slice(0, 3); } }
  const fg = rgb(getComputedStyle(el).color).slice(0, 3); const [a, b] = [lum(fg), lum(bg || [255, 255, 255])];
  return { contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), bg: lum(bg || [255, 255, 255]) }; }"""


def test_lesson_03_widgets_in_light_and_dark_themes(open_notebook):
    cells = [c.source for c in nbformat.read(LESSON, as_version=4).cells if c.cell_type == "code"]
    nb = open_notebook(cells)
    page = nb.page
    for css in WIDGETS.values():
        page.locator(css).first.wait_for(timeout=60000)
    ARTIFACTS.mkdir(exist_ok=True)
    backgrounds = {}
    try:
        _shoot_both_themes(page, backgrounds)
    finally:  # the theme is a user setting of the shared server: the next stories expect the light one
        page.evaluate("() => { window.jupyterapp.commands.execute('apputils:change-theme', "
                      "{theme: 'JupyterLab Light'}); }")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=30000)
    for name in WIDGETS:                                                   # the widgets follow the theme
        assert backgrounds[(name, "dark")] < backgrounds[(name, "light")] - 0.3, name
    assert nb.dialogs == []


def _shoot_both_themes(page, backgrounds):
    for theme, light in (("JupyterLab Light", "true"), ("JupyterLab Dark", "false")):
        page.evaluate("(t) => { window.jupyterapp.commands.execute('apputils:change-theme', {theme: t}); }", theme)
        page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=30000)
        page.wait_for_timeout(500)                                        # the theme's stylesheet applied
        kind = "light" if light == "true" else "dark"
        for name, css in WIDGETS.items():
            el = page.locator(css).first
            el.scroll_into_view_if_needed()
            status = el.locator(".hl-status").first
            measured = status.evaluate(CONTRAST)
            assert measured["contrast"] >= 3, (theme, name, measured)       # readable status text
            backgrounds[(name, kind)] = measured["bg"]
            el.screenshot(path=str(ARTIFACTS / f"theme-{name}-{kind}.png"))
