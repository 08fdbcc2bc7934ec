"""Drive a real JupyterLab in headless Chromium: the harness of the end-to-end tests (tests/ui) and
of benchmarks/render_graph.py.

Recipe (shared/design/TOOLCHAIN.md, "End-to-end tests"): a JupyterLab server on 127.0.0.1 on a port it
picks itself, with a random token, its kernels on IPC sockets (no TCP ports to race for with parallel
workers), its config/runtime/settings/workspace dirs in a temp dir (the news toast disabled), and
Debian's ``/usr/bin/chromium`` launched by playwright with the flags of ARCHITECTURE.md. Cells are never
typed: notebooks are written with nbformat and run through JupyterLab's commands (``window.jupyterapp``,
exposed by ``--LabApp.expose_app_in_browser``), fire-and-forget, then the tests wait on DOM or model
state.
"""
import json
import os
import pathlib
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import nbformat

REPO = pathlib.Path(__file__).resolve().parents[2]
# the cell source of a small hybridized MLP, shared by the stories
MLP = """import hybridlab as mx
from hybridlab.gluon import nn
net = nn.HybridSequential()
net.add(nn.Dense(16, activation='relu'), nn.Dense(8, activation='relu'), nn.Dense(2))
net.initialize()
net.hybridize()
x = mx.nd.ones((4, 8))
out = net(x)
"""

# a model-zoo ResNet-50 v2 after one recorded forward and backward (forward and backward graphs),
# shared by the big-model story and benchmarks/render_graph.py
RESNET50 = """import json
import hybridlab as mx
from hybridlab import autograd
from hybridlab.gluon.model_zoo import vision
net = vision.resnet50_v2()
net.initialize()
net.hybridize()
x = mx.nd.random.uniform(shape=(1, 3, 224, 224))
with autograd.record():
    out = net(x)
out.backward()
"""

CHROMIUM = os.environ.get("HYBRIDLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def missing_requirements():
    """Why the browser tests cannot run here (a list of reasons; empty when they can)."""
    reasons = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reasons.append("the python package `playwright` is not installed (pip install -e '.[test]')")
    if not os.path.exists(CHROMIUM):
        reasons.append(f"no chromium at {CHROMIUM} (apt-get install -y chromium)")
    ext = pathlib.Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "hybridlab" / "package.json"
    if not ext.exists():
        reasons.append(f"the hybridlab extension is not installed in {sys.prefix} (expected {ext}; make install)")
    return reasons


class LabServer:
    """A JupyterLab server in a temp dir; ``root`` is where notebooks are written."""

    def __init__(self, python=sys.executable):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="hl-lab-"))
        self.root = self.tmp / "root"
        self.root.mkdir()
        cfg = self.tmp / "cfg"
        (cfg / "labconfig").mkdir(parents=True)
        (cfg / "labconfig" / "page_config.json").write_text(json.dumps(
            {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
        self.port = None                    # the server picks a free one; _wait_ready reads it back
        self.token = secrets.token_hex(16)
        self.log_path = self.tmp / "server.log"
        kernel_lib = str(REPO / "kernel_lib")
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(cfg), JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
                   JUPYTERLAB_SETTINGS_DIR=str(self.tmp / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"),
                   PYTHONPATH=kernel_lib + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [python, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
             "--ServerApp.port=0", "--KernelManager.transport=ipc",
             f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
             "--LabApp.expose_app_in_browser=True",
             "--LabServerApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            env=env, stdout=self._log, stderr=subprocess.STDOUT)
        self._wait_ready()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def api(self, path, method="GET"):
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None

    def _wait_ready(self, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                self.port = self.port or self._listening_port()
                self.api("/api/status")
                return
            except Exception:  # noqa: BLE001 -- not listening yet
                time.sleep(0.2)
        raise RuntimeError(f"JupyterLab did not answer on {self.url} within {timeout}s:\n{self.log_tail()}")

    def _listening_port(self):
        """The port in the server's info file (written once it listens): asking the OS for a free port
        and handing it to the server would leave a window in which another process takes it."""
        info = self.tmp / "runtime" / f"jpserver-{self.proc.pid}.json"
        return json.loads(info.read_text())["port"]

    def log_tail(self, n=3000):
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-n:]

    def shutdown_kernels(self):
        """Delete every session (and so its kernel); a test's notebook kernel ends with the test."""
        for s in self.api("/api/sessions") or []:
            try:
                self.api(f"/api/sessions/{s['id']}", method="DELETE")
            except Exception:  # noqa: BLE001 -- already gone
                pass

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self._log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def launch_chromium(playwright):
    """Debian's chromium, headless, with its own temp profile (``launch`` rejects --user-data-dir)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def write_notebook(path, cells, outputs=None):
    """Write code ``cells`` (sources) as a notebook; ``outputs`` (per cell, optional) are stored
    with them, as a saved notebook has them."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    if outputs:
        for cell, outs in zip(nb.cells, outputs):
            cell.outputs = outs
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


_CURRENT = "window.jupyterapp && window.jupyterapp.shell.currentWidget"

_KERNEL_IDLE = """() => { const w = %s; const k = w && w.sessionContext && w.sessionContext.session &&
    w.sessionContext.session.kernel; return !!k && k.connectionStatus === 'connected' && k.status === 'idle'; }""" % _CURRENT


class Notebook:
    """One open notebook in a playwright ``page``: run cells, read their outputs."""

    def __init__(self, page, server, name):
        self.page = page
        self.server = server
        self.name = name
        self.dialogs = []
        self.console_errors = []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)

    def open(self, kernel=True, timeout=60000):
        # a workspace of its own: JupyterLab would otherwise restore the tabs of earlier tests
        workspace = "ws-" + "".join(ch if ch.isalnum() else "-" for ch in self.name)
        self.page.goto(f"{self.server.url}/lab/workspaces/{workspace}/tree/{self.name}?token={self.server.token}")
        if kernel:
            self.wait_kernel_idle(timeout)
        else:
            self.page.wait_for_function(
                f"() => {{ const w = {_CURRENT}; return !!w && !!w.content && w.content.widgets.length > 0; }}",
                timeout=timeout)
        return self

    def wait_kernel_idle(self, timeout=60000):
        self.page.wait_for_function(_KERNEL_IDLE, timeout=timeout)

    def cell_count(self):
        return self.page.evaluate(f"() => {_CURRENT}.content.widgets.length")

    def _exec_counts(self):
        return self.page.evaluate(f"() => {_CURRENT}.content.widgets.map(c => c.model.executionCount)")

    def run_all(self, timeout=90000):
        """Run every cell; wait until each has run and the kernel is idle; raise on a cell error."""
        n = self.cell_count()
        self.page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        self._wait_ran(range(n), timeout)

    def run_cell(self, index, source=None, timeout=60000):
        """Run cell ``index`` (after replacing its source with ``source`` when given)."""
        before = self._exec_counts()[index]
        self.page.evaluate("""([i, src]) => { const nb = %s.content; const c = nb.widgets[i];
            if (src !== null) { c.model.sharedModel.setSource(src); }
            nb.activeCellIndex = i; window.jupyterapp.commands.execute('notebook:run-cell'); }""" % _CURRENT,
                           [index, source])
        self._wait_ran([index], timeout, before={index: before})

    def _wait_ran(self, indices, timeout, before=None):
        before = before or {}
        indices = list(indices)
        check = """([idx, before]) => { const w = %s; const k = w.sessionContext.session.kernel;
            const cells = w.content.widgets;
            if (k.status !== 'idle') { return false; }
            const failed = cells.some(c => c.model.outputs.toJSON().some(o => o.output_type === 'error'));
            return failed || idx.every(i => { const n = cells[i].model.executionCount;
                return n !== null && n !== before[String(i)]; }); }""" % _CURRENT
        self.page.wait_for_function(check, arg=[indices, {str(k): v for k, v in before.items()}],
                                    timeout=timeout, polling=100)
        for i in range(self.cell_count()):
            err = [o for o in self.outputs(i) if o.get("output_type") == "error"]
            if err:
                tb = "\n".join(err[0].get("traceback", []))
                raise AssertionError(f"cell {i} of {self.name} raised {err[0].get('ename')}: "
                                     f"{err[0].get('evalue')}\n{tb}")

    def outputs(self, index):
        """The outputs of cell ``index`` as nbformat JSON."""
        return self.page.evaluate(f"(i) => {_CURRENT}.content.widgets[i].model.outputs.toJSON()", index)

    def text(self, index):
        """The cell's printed text (streams) and its result's ``text/plain``, joined."""
        parts = []
        for o in self.outputs(index):
            if o.get("output_type") == "stream":
                parts.append(o["text"] if isinstance(o["text"], str) else "".join(o["text"]))
            elif "data" in o and "text/plain" in o["data"]:
                t = o["data"]["text/plain"]
                parts.append(t if isinstance(t, str) else "".join(t))
        return "".join(parts)

    def json_output(self, index):
        """The cell's printed text parsed as JSON (cells print ``json.dumps(...)``)."""
        return json.loads(self.text(index))

    def wait_for_status(self, *parts, root=".hl-graph-widget", timeout=10000):
        """Wait until the status line of the graph view in ``root`` holds every text of ``parts``."""
        self.page.wait_for_function(
            """([root, parts]) => { const s = document.querySelector(root + ' .hl-status');
               return s !== null && parts.every(p => s.textContent.includes(p)); }""",
            arg=[root, list(parts)], timeout=timeout)

    def cell(self, index):
        """The cell's DOM node as a playwright locator."""
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def save(self):
        self.page.evaluate("() => { window.jupyterapp.commands.execute('docmanager:save'); }")
