"""Fixtures of the end-to-end tests: one JupyterLab server and one headless Chromium per test
session (per xdist worker), a fresh browser context, notebook and kernel per test, and a screenshot
of every test's page under tests/ui/artifacts/ (written whether the test passed or not).

Without playwright, chromium or the built extension the tests are skipped with the reason, unless
``HYBRIDLAB_UI_TESTS=require`` (set by ``make test``), which turns a missing piece into a failure.
"""
import os
import pathlib
import re

import pytest

from lab_harness import LabServer, Notebook, launch_chromium, missing_requirements, write_notebook

ARTIFACTS = pathlib.Path(__file__).resolve().parent / "artifacts"


def _require_or_skip():
    reasons = missing_requirements()
    if not reasons:
        return
    msg = "browser tests cannot run: " + "; ".join(reasons)
    if os.environ.get("HYBRIDLAB_UI_TESTS") == "require":
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def lab_server():
    _require_or_skip()
    server = LabServer()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(lab_server):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


@pytest.fixture
def open_notebook(request, lab_server, browser):
    """``open_notebook(cells, run=True, outputs=None, kernel=True)`` writes a fresh notebook with
    these code cells (and saved ``outputs``), opens it in a new browser context and, with ``run``,
    runs all cells; returns a ``lab_harness.Notebook``."""
    contexts, opened = [], []
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def _open(cells, run=True, outputs=None, kernel=True):
        name = f"{stem}-{len(opened)}.ipynb"
        write_notebook(lab_server.root / name, cells, outputs)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        contexts.append(ctx)
        nb = Notebook(ctx.new_page(), lab_server, name)
        opened.append(nb)
        nb.open(kernel=kernel or run)
        if run:
            nb.run_all()
        return nb

    yield _open
    ARTIFACTS.mkdir(exist_ok=True)
    for i, nb in enumerate(opened):
        try:
            suffix = f"-{i}" if i else ""
            nb.page.screenshot(path=str(ARTIFACTS / f"{stem}{suffix}.png"), full_page=True)
        except Exception:  # noqa: BLE001 -- a screenshot is an artifact, never the failure
            pass
    for ctx in contexts:
        ctx.close()
    lab_server.shutdown_kernels()
