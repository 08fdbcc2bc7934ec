"""Running code in real MXNet 1.9.1 for the differential tests: the Python of ``.venv-mxnet``
(``make test`` creates it) or ``$HYBRIDLAB_MXNET_PYTHON``, or this one when it imports mxnet.

``run(script, *args)`` runs ``script`` there and returns its stdout; ``needs_mxnet`` skips a test,
with the reason, where no such Python is configured."""
import os
import subprocess
import sys

import pytest

__all__ = ["python", "run", "needs_mxnet"]


def python():
    """The path of a Python with mxnet==1.9.1, or ``None``."""
    try:
        import mxnet  # noqa: F401
        return sys.executable
    except ImportError:
        return os.environ.get("HYBRIDLAB_MXNET_PYTHON") or None


needs_mxnet = pytest.mark.skipif(python() is None, reason="real MXNet 1.9.1 is not configured (make test creates "
                                                          ".venv-mxnet; or set HYBRIDLAB_MXNET_PYTHON)")


def run(script, *args, timeout=600):
    """Run ``script`` (Python source) in real MXNet with ``args``; its stdout (its stderr in the
    failure message)."""
    result = subprocess.run([python(), "-c", script, *map(str, args)], capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"real MXNet failed:\n{result.stderr[-4000:]}"
    return result.stdout
