#!/bin/bash
# The GPU checks of this project in one run, for a machine with a CUDA device, CuPy and a cuDNN wheel
# (nvidia-cudnn-cu12 or -cu13) but nothing else of hybridlab's: the op checker on the GPU (NumPy code run by
# CuPy, and every convolution case on the cuDNN path), the GPU tests, then benchmarks/gpu_cached_op.py.
# The whole log goes to $OUT/gpu_check.log when OUT is set (else ./gpu_check.log).
#
# hybridlab's one pure-Python import that such a machine may lack is graphviz: where it cannot be
# installed there, download its wheel beside the checkout first (`pip download --no-deps -d .whl graphviz`;
# .whl is ignored by git) and this script installs it from there.
#
# Run: bash tools/gpu_check.sh [--quick]     (--quick: the tests only, no benchmark)
set -o pipefail
cd "$(dirname "$0")/.."
LOG="${OUT:-.}/gpu_check.log"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/kernel_lib${PYTHONPATH:+:$PYTHONPATH}"
if ! $PY -c "import graphviz" 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --target /tmp/gpu_check_site .whl/*.whl
  export PYTHONPATH="$PYTHONPATH:/tmp/gpu_check_site"
fi
{
  nvidia-smi -L
  $PY - <<'EOF'
import cupy
import hybridlab as mx
from hybridlab.ops import conv_path, cudnn
print("cupy", cupy.__version__, "gpus", mx.num_gpus(), "cuDNN", cudnn.version() if cudnn.available() else cudnn.load_error())
print("cuDNN usable on GPU 0:", cudnn.usable(0), cudnn.unusable_reason(0) or "", "| GPU conv path:", conv_path.current_gpu())
EOF
  WORKERS=$(( $(nproc) > 8 ? 8 : $(nproc) ))
  $PY -m pytest -q -p no:cacheprovider -n "$WORKERS" -rs tests/test_cudnn.py tests/test_fused_gpu.py \
      tests/test_ops.py -k "gpu or cudnn" 2>&1 | tail -40
  $PY -m pytest -q -p no:cacheprovider -n "$WORKERS" -rs tests/test_devices.py tests/test_cached_op.py \
      tests/test_hybrid_backward.py tests/test_ndarray.py tests/test_indexing.py tests/test_creation_random.py \
      -k "gpu or cuda or device" 2>&1 | tail -25
  if [ "$1" != "--quick" ]; then
    $PY benchmarks/gpu_cached_op.py --rounds 3 --number 10
  fi
} 2>&1 | tee "$LOG"
