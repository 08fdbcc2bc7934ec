"""``mx.runtime``: which of MXNet's build features this installation has, under MXNet's names.

MXNet reports what its library was compiled with (``mx.runtime.Features().is_enabled('CUDA')``);
code and MXNet's own tests ask it to pick a path or skip a test. Here each answer is what this
machine can do now: ``CUDA`` when CuPy sees a GPU, ``CUDNN`` / ``NCCL`` when CuPy has them,
``OPENCV`` when ``cv2`` imports, the BLAS NumPy was built with; features hybridlab has in Python
(``PROFILER``, ``INT64_TENSOR_SIZE``, ``SIGNAL_HANDLER``) are on; compiled ones it has no part of
(TensorRT, TVM ops, jemalloc, oneDNN kernels) are off; the CPU's SIMD features are what NumPy
detected.

Example::

    >>> import hybridlab as mx
    >>> features = mx.runtime.Features()
    >>> features.is_enabled('profiler'), 'CUDA' in features
    (True, True)
    >>> features.is_enabled('NO_SUCH_THING')
    Traceback (most recent call last):
    ...
    RuntimeError: Feature 'NO_SUCH_THING' is unknown, known features are: ['CUDA', ...]
"""
import collections
import importlib.util

__all__ = ["Feature", "Features", "feature_list"]


class Feature:
    """One build feature: ``name`` and ``enabled``; shown as ``✔ CUDA`` or ``✖ CUDA`` as in MXNet."""

    def __init__(self, name, enabled):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self):
        return f"{'✔' if self.enabled else '✖'} {self.name}"


def _cupy_has(attr):
    from .device import cupy_or_none
    cp = cupy_or_none()
    if cp is None:
        return False
    try:
        return importlib.util.find_spec(f"cupy.cuda.{attr}") is not None or hasattr(cp.cuda, attr)
    except (ImportError, ValueError):
        return False


def _numpy_blas():
    """The BLAS NumPy was built with: ``openblas``, ``mkl``, ``accelerate``, ``atlas`` or ``''``."""
    import numpy as np
    try:
        config = np.show_config(mode="dicts")
    except TypeError:          # NumPy < 1.26 has no mode: no machine-readable answer
        return ""
    name = str(((config or {}).get("Build Dependencies", {}).get("blas", {}) or {}).get("name", "")).lower()
    for known in ("openblas", "mkl", "accelerate", "atlas"):
        if known in name:
            return known
    return ""


def _cpu_features():
    """The CPU features NumPy found on this machine (``{'AVX2': True, ...}``); ``{}`` when unknown."""
    for where in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            return dict(importlib.import_module(where).__cpu_features__)
        except (ImportError, AttributeError):
            continue
    return {}


def feature_list():
    """The features as ``Feature`` objects, in MXNet's order."""
    from .device import gpu_available
    blas = _numpy_blas()
    cuda = gpu_available()
    cpu = _cpu_features()
    return [Feature(name, on) for name, on in [
        ("CUDA", cuda), ("CUDNN", cuda and _cupy_has("cudnn")), ("NCCL", cuda and _cupy_has("nccl")),
        ("TENSORRT", False), ("CUTENSOR", cuda and _cupy_has("cutensor")),
        ("CPU_SSE", cpu.get("SSE")), ("CPU_SSE2", cpu.get("SSE2")), ("CPU_SSE3", cpu.get("SSE3")),
        ("CPU_SSE4_1", cpu.get("SSE41")), ("CPU_SSE4_2", cpu.get("SSE42")), ("CPU_SSE4A", cpu.get("SSE4A")),
        ("CPU_AVX", cpu.get("AVX")), ("CPU_AVX2", cpu.get("AVX2")),
        ("OPENMP", blas in ("openblas", "mkl")), ("SSE", cpu.get("SSE")), ("F16C", cpu.get("F16C")), ("JEMALLOC", False),
        ("BLAS_OPEN", blas == "openblas"), ("BLAS_ATLAS", blas == "atlas"), ("BLAS_MKL", blas == "mkl"),
        ("BLAS_APPLE", blas == "accelerate"), ("LAPACK", True), ("MKLDNN", False),
        ("OPENCV", importlib.util.find_spec("cv2") is not None), ("CAFFE", False), ("PROFILER", True),
        ("DIST_KVSTORE", False), ("CXX14", True), ("INT64_TENSOR_SIZE", True), ("SIGNAL_HANDLER", True),
        ("DEBUG", False), ("TVM_OP", False),
    ]]


class Features(collections.OrderedDict):
    """The features by name (``Features()['CUDA'].enabled``); ``is_enabled(name)`` asks for one."""

    def __init__(self):
        super().__init__((f.name, f) for f in feature_list())

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether the feature ``feature_name`` (any case) is on; RuntimeError for an unknown name."""
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError(f"Feature '{name}' is unknown, known features are: {list(self.keys())}")
        return self[name].enabled
