#!/bin/bash
# The GPU checks of this project in one run, for a machine with a CUDA device, CuPy and a cuDNN wheel
# (nvidia-cudnn-cu12 or -cu13) but nothing else of hybridlab's. Stages, each under its own time limit so
# that one slow stage leaves the others their time (a lent GPU machine's minutes are few):
#   env    (60 s) CuPy, the GPUs, cuDNN's version and whether GPU 0 passes the cuDNN path's check
#   conv   (200 s) the cuDNN binding's tests, every convolution case of the op checker on the cuDNN path,
#          the fused elementwise kernels, the GPU model-zoo and training-program tests
#   bench  (270 s) benchmarks/gpu_cached_op.py (MLP and LeNet; CNNs on both GPU convolution paths, plain vs
#          static_alloc)
#   ops    (300 s) the whole op checker on the GPU (NumPy's code run by CuPy) and the other GPU tests
# The log goes to $OUT/gpu_check.log when OUT is set (else ./gpu_check.log).
#
# hybridlab's one pure-Python import such a machine may lack is graphviz: where it cannot be installed
# there, download its wheel into the checkout first (`pip download --no-deps -d .whl graphviz`; .whl is
# ignored by git) and this script installs it from there.
#
# Run: bash tools/gpu_check.sh [stage ...]       (default: env conv bench ops; env conv bench fit one
#      600-second command, ops a second one)
set -o pipefail
cd "$(dirname "$0")/.."
LOG="${OUT:-.}/gpu_check.log"
PY=${PYTHON:-python3}
STAGES=${*:-env conv bench ops}
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/kernel_lib${PYTHONPATH:+:$PYTHONPATH}"
if ! $PY -c "import graphviz" 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --target /tmp/gpu_check_site .whl/*.whl
  export PYTHONPATH="$PYTHONPATH:/tmp/gpu_check_site"
fi
WORKERS=$(( $(nproc) > 8 ? 8 : $(nproc) ))
PYTEST="$PY -m pytest -q -p no:cacheprovider -n $WORKERS -rs"

stage() {     # stage NAME SECONDS COMMAND...: run COMMAND under a time limit, report its time and status
  local name=$1 limit=$2 start=$SECONDS
  shift 2
  echo "== $name (limit ${limit}s)"
  timeout "$limit" "$@"
  echo "== $name: exit $? after $(( SECONDS - start ))s"
}

{
  for s in $STAGES; do
    case $s in
      env) stage env 60 $PY -c '
import shutil, subprocess
if shutil.which("nvidia-smi"):
    print(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.strip())
import cupy
import hybridlab as mx
from hybridlab.ops import conv_path, cudnn
print("cupy", cupy.__version__, "| GPUs", mx.num_gpus(), "| cuDNN", cudnn.version() if cudnn.available() else cudnn.load_error())
print("cuDNN usable on GPU 0:", cudnn.usable(0), cudnn.unusable_reason(0) or "", "| GPU conv path:", conv_path.current_gpu())' ;;
      conv) stage conv 200 $PYTEST tests/test_cudnn.py tests/test_fused_gpu.py tests/test_ops.py -k "cudnn or fused" ;;
      bench) stage bench 270 $PY benchmarks/gpu_cached_op.py --rounds 3 --number 10 ;;
      ops) stage ops 300 $PYTEST tests/test_ops.py tests/test_devices.py tests/test_cached_op.py \
             tests/test_hybrid_backward.py tests/test_ndarray.py tests/test_indexing.py tests/test_creation_random.py \
             tests/test_module.py tests/test_op_hooks.py tests/test_codegen_safety.py \
             -k "gpu or cuda or device" ;;
      *) echo "unknown stage $s (expected env, conv, bench, ops)"; exit 2 ;;
    esac
  done
} 2>&1 | tee "$LOG"
