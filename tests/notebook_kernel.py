"""Execute a notebook in a real IPython kernel that imports this checkout's ``hybridlab``.

The kernel talks over IPC sockets in a fresh temp folder, not TCP: with TCP, jupyter_client picks free
ports and closes them before the kernel binds them, so two kernels started at once by parallel test
workers can pick the same port, and one of them never answers (seen in CI: "Address already in use").
The socket paths are absolute (next to the connection file): the kernel runs in the notebook's folder.
"""
import os
import pathlib
import shutil
import tempfile

from nbclient import NotebookClient
from traitlets.config import Config

KERNEL_LIB = str(pathlib.Path(__file__).resolve().parent.parent / "kernel_lib")


def execute_notebook(nb, cwd=None, timeout=120):
    """Run every cell of ``nb`` in place (outputs filled in), in ``cwd`` when given."""
    resources = {"metadata": {"path": str(cwd)}} if cwd is not None else {}
    env = dict(os.environ, PYTHONPATH=KERNEL_LIB + os.pathsep + os.environ.get("PYTHONPATH", ""))
    sockets = tempfile.mkdtemp(prefix="hl-kernel-")          # short: a socket path has ~107 bytes at most
    ipc = Config({"KernelManager": {"transport": "ipc", "connection_file": os.path.join(sockets, "kernel.json")}})
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", config=ipc, resources=resources).execute(env=env)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    return nb
