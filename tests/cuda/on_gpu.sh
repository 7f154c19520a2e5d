#!/usr/bin/env bash
# What a session lent a GPU machine runs there (the `device` tool's `run`, from the checkout's
# root; docs/cuda.md, "On a lent GPU"): one stage per call, each well inside 10 minutes, logs
# under $OUT (or ./gpu-logs). Nothing can be fetched there: the wheels its image lacks travel
# in .whl (carry it), and the official suite's checkout in .suite (carry it for `suite`).
#
#   tests/cuda/on_gpu.sh check    # the GPU, CuPy, NVRTC, and a clip(a - b) on the device
#   tests/cuda/on_gpu.sh tests    # pytest -m gpu tests/cuda tests/render, then tests/cuda whole
#   tests/cuda/on_gpu.sh bench    # benchmarks/cuda.py against torch.compile and CuPy
#   tests/cuda/on_gpu.sh suite    # the official Array API suite, cuda the default device
set -uo pipefail
out="${OUT:-gpu-logs}"
mkdir -p "$out"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
stage="${1:-check}"
case "$stage" in
  check)
    nvidia-smi -L 2>&1 | tee "$out/check.log"
    python3 - <<'PY' 2>&1 | tee -a "$out/check.log"
import numpy as np, lazyinfini as li
from lazyinfini._render import nvrtc
import cupy
print("cupy", cupy.__version__, "nvrtc", nvrtc.version(), "devices", li.__array_namespace_info__().devices())
a = li.asarray(np.linspace(-2, 2, 1 << 20, dtype=np.float32), device="cuda")
y = li.clip(a - 0.5, -1.0, 1.0)
print(li.explain(y))
np.testing.assert_array_equal(np.asarray(y), np.clip(np.asarray(a) - np.float32(0.5), -1, 1))
print("clip(a - b) on the GPU equals numpy's")
PY
    ;;
  tests)
    python3 -m pytest -q -p no:cacheprovider -m gpu tests/cuda tests/render 2>&1 | tee "$out/gpu-tests.log"
    python3 -m pytest -q -p no:cacheprovider tests/cuda tests/render 2>&1 | tee "$out/cuda-tests.log"
    ;;
  bench)
    python3 benchmarks/cuda.py 2>&1 | tee "$out/bench.log"
    ;;
  suite)
    cd .suite && LAZYINFINI_SUITE_DEVICE=cuda ARRAY_API_TESTS_MODULE=lazyinfini \
      python3 -m pytest array_api_tests -p tests.cuda.suite -p no:cacheprovider \
      --max-examples 100 --disable-deadline -n 8 --tb=line -q 2>&1 | tee "../$out/suite.log"
    ;;
  *)
    echo "unknown stage $stage: check, tests, bench or suite" >&2
    exit 2
    ;;
esac
