#!/usr/bin/env bash
# GPU checks, step 2: run on the machine with the NVIDIA GPU (python3, torch, CUDA driver; no
# LLVM, no libkda build needed).
#
#   step 1, on the build machine:  python3 test/gpu/prepare.py --out test/gpu/artifacts
#   step 2, here:                  bench/run_gpu_checks.sh [ARTIFACT_DIR]
#
# Runs test/gpu (every kernel of kernels/ on CUDA from the prepared cubin and PTX vs the CPU
# target's results, CUDA-graph capture/replay bit-identical to eager, the C API's GPU half and a
# generated header; and every @kt.jit kernel launched as `kernel[grid](cuda tensors, CONST=...)`
# from the ahead-of-time bundle DIR/bundle with KDATILE_BUNDLE, vs the CPU results and under
# CUDA-graph capture; and test_gpu_ops.py: kdatile.ops.kda_decode / kda_decode_with_f_b /
# kda_recurrent on CUDA tensors from the same bundle vs the fp64 reference saved in
# DIR/ops_*.npz with the docs/kda.md tolerances, and each op captured into a CUDA graph,
# replayed bit-identically to eager) and exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="$(cd "${1:-test/gpu/artifacts}" 2>/dev/null && pwd || true)"
if [[ -z "$DIR" || ! -f "$DIR/manifest.json" ]]; then
  echo "no manifest.json in ${1:-test/gpu/artifacts}: run" >&2
  echo "  python3 test/gpu/prepare.py --out test/gpu/artifacts" >&2
  echo "on the build machine and copy the directory here" >&2
  exit 2
fi
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null || true
python3 - <<'PY'
import torch
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
      f"available={torch.cuda.is_available()}")
if torch.cuda.is_available():
    print(f"device 0: {torch.cuda.get_device_name(0)}, "
          f"capability {torch.cuda.get_device_capability(0)}")
PY
python3 - "$DIR" <<'PY'
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
print(f"== artifacts from {m['compiler']}")
for c in m["cases"]:
    files = ", ".join(sorted(c["files"])) or "none"
    errs = "; ".join(f"{k}: " + " / ".join([l for l in v.strip().splitlines() if l.strip()][:2])
                     for k, v in c.get("errors", {}).items())
    print(f"  {c['id']:<32} {files:<12} {errs}")
ops = m.get("ops") or {}
if "error" in ops or not ops:
    print(f"  kdatile.ops cases: {ops.get('error', 'none (rerun prepare.py)')}")
else:
    print(f"  kdatile.ops cases: {len(ops['decode'])} decode, {len(ops['recurrent'])} recurrent, "
          f"{len(ops.get('prefill', []))} prefill")
PY
if [[ -f "$DIR/bundle/index.json" ]]; then
  PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" python3 -c \
    'import sys; from kdatile.bundle import describe; print("== bundle"); print(describe(sys.argv[1]))' \
    "$DIR/bundle"
else
  echo "== no bundle in $DIR (rerun prepare.py): the @kt.jit bundle tests will skip"
fi
echo "== tests"
export KDA_GPU_ARTIFACTS="$DIR"
python3 -m pytest -p no:cacheprovider -q -rs test/gpu "${@:2}"
