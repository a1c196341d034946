#!/usr/bin/env bash
# One prepared command for a GPU machine (issue 22 item 1): from a fresh copy of the working tree (no
# install), run every GPU check and benchmark in order, each under its own time limit, never stopping at
# a failure, then write one results file and a summary.
#
#   bash bench/gpu_run.sh            # on the GPU machine (H100/H200): under 9 minutes in all
#   bash bench/gpu_run.sh --smoke    # smallest sizes; with TFCORE_EMULATED_GPUS=1 it runs anywhere (CI)
#
# Steps (NN-name): 00-setup (PYTHONPATH of the copy, the item-11 way; nvidia-smi; import check),
# 01-info, 02-selftest (--json), 03-tests-gpu (pytest tests/gpu), 04-bench-kernels (tfcore bench, vs
# cuBLAS/cuDNN/CuPy/PyTorch), 05-bench-train-fp32 and 06-bench-train-tf32 (tfcore bench train next to
# PyTorch: strict float32 on both sides, then TF32 on both sides), 07-bench-function (tf.function GPU
# rows, CUDA graphs on and off), 08-bench-mixed-precision, 09-bench-distribute (two logical GPUs of
# GPU:0), 10-profile-ops (per-op profile of an eager ResNet50 training step).
# GPU_RUN_STEPS=02-selftest,05-bench-train-fp32 runs only the named steps, and 01-info before them always: it
# builds the native CPU library (~75 s on 11-27 as one unit; now in parts on the machine's cores), which a later
# step would otherwise build inside its own time limit (a run without it on 11-27 lost three tests that way).
#
# Output: with $OUT set (the device tool's folder, which brings back at most 8 files) everything lands
# there: results.json (every step: command, exit status, seconds, time-outs, log tail; the selftest's
# JSON), summary.md (a table of the steps and each step's figures), selftest.json, logs.tar.gz (every
# step's full log, NN-name.log) and gpu-run.log (this script's console). Without $OUT:
# ./gpu-run-<UTC time>/. Step logs are written under $GPU_RUN_WORK (default /tmp/tfcore-gpu-run).
set +e
set -u
cd "$(dirname "$0")/.."
REPO=$(pwd)
SMOKE=0
for arg in "$@"; do
  case "$arg" in
    --smoke) SMOKE=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "gpu_run.sh: unknown argument $arg (use --smoke or --help)" >&2; exit 2 ;;
  esac
done
[ "${GPU_RUN_SMOKE:-0}" = "1" ] && SMOKE=1
PY=${PYTHON:-python3}                    # runs the steps
HELPER_PY=${GPU_RUN_HELPER_PYTHON:-$PY}  # writes the step records and the report (standard library only)
RESULTS=${OUT:-$REPO/gpu-run-$(date -u +%Y%m%d-%H%M%S)}
WORK=${GPU_RUN_WORK:-/tmp/tfcore-gpu-run}
BUDGET=${GPU_RUN_BUDGET_S:-530}          # all steps together: the 9-minute window, less packing
MIN_STEP=${GPU_RUN_MIN_STEP_S:-10}       # a step that would get less than this is skipped
mkdir -p "$RESULTS" "$WORK/logs"
rm -f "$WORK"/logs/*.log "$WORK/steps.jsonl"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"   # a plain copy of the checkout (tfcore/_source_tree.py)
export PYTHONUNBUFFERED=1
export TFCORE_PTX_CACHE="$WORK/kernel-cache"        # kernels compiled once per run, shared by every step
START=$(date +%s)
exec > >(tee -a "$RESULTS/gpu-run.log") 2>&1

echo "gpu_run.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), repo $REPO, results in $RESULTS, smoke=$SMOKE, budget ${BUDGET}s"

# step NN-name LIMIT_SECONDS command...: runs with its own timeout (cut to what is left of the budget),
# logs to $WORK/logs/NN-name.log, records the outcome, refreshes the report. Never stops the script.
step() {
  local name=$1 limit=$2; shift 2
  if [ -n "${GPU_RUN_STEPS:-}" ] && [ "$name" != 01-info ] && [[ ",$GPU_RUN_STEPS," != *",$name,"* ]]; then
    return 0
  fi
  local used=$(( $(date +%s) - START )) left
  left=$(( BUDGET - used ))
  if [ "$left" -lt "$MIN_STEP" ]; then
    echo "== $name: SKIPPED (budget of ${BUDGET}s spent)"
    printf '{"name": "%s", "rc": null, "seconds": 0, "limit": 0, "skipped": true, "command": ""}\n' "$name" >> "$WORK/steps.jsonl"
    return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local log="$WORK/logs/$name.log" t0 rc
  t0=$(date +%s.%N)
  echo "== $name (limit ${limit}s): $*"
  { echo "\$ $*"; echo; } > "$log"
  timeout --kill-after=10 "$limit" "$@" >> "$log" 2>&1
  rc=$?
  local secs
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  local verdict="ok"
  [ "$rc" -ne 0 ] && verdict="FAILED (exit $rc)"
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && verdict="TIMED OUT after ${limit}s"
  echo "   $name: $verdict in ${secs}s; $(tail -n 1 "$log" | cut -c1-150)"
  "$HELPER_PY" - "$name" "$rc" "$secs" "$limit" "$*" >> "$WORK/steps.jsonl" <<'PYEOF'
import json, sys
name, rc, secs, limit, cmd = sys.argv[1:]
print(json.dumps({"name": name, "rc": int(rc), "seconds": float(secs), "limit": int(limit), "command": cmd,
                  "timed_out": int(rc) in (124, 137)}))
PYEOF
  report
}

report() {
  "$HELPER_PY" "$REPO/bench/gpu_run_report.py" --work "$WORK" --results "$RESULTS" --smoke "$SMOKE" > /dev/null 2>&1 \
    || echo "   (report helper failed)"
  tar czf "$RESULTS/logs.tar.gz.tmp" -C "$WORK" logs 2>/dev/null && mv "$RESULTS/logs.tar.gz.tmp" "$RESULTS/logs.tar.gz"
}

if [ "$SMOKE" = "1" ]; then
  # Smallest sizes. GPU steps run on whatever GPU the caller set up (TFCORE_EMULATED_GPUS=1 in CI);
  # the timing steps run on the CPU backend (an emulator's timings mean nothing and take minutes).
  CPU_ONLY=(env TFCORE_EMULATED_GPUS=0)
  step 00-setup 60 bash -c "command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/GPU: /'; $PY -c 'import sys, tfcore, tfcore.kernels, tfcore.distribute; print(sys.version); print(tfcore.__file__, tfcore.distribute.__file__)'"
  step 01-info 60 "$PY" -m tfcore info
  step 02-selftest 240 "$PY" -m tfcore selftest --json "$RESULTS/selftest.json"
  step 03-tests-gpu 120 "$PY" -m pytest -q -p no:cacheprovider -o addopts= tests/gpu
  step 04-bench-kernels 60 "${CPU_ONLY[@]}" "$PY" -m tfcore bench reduce --repeat 1
  step 05-bench-train-fp32 60 "${CPU_ONLY[@]}" "$PY" -m tfcore bench train --tiny --steps 1 --repeats 1
  step 06-bench-train-tf32 60 "${CPU_ONLY[@]}" "$PY" -m tfcore bench train --tiny --steps 1 --repeats 1 --tf32
  step 07-bench-function 60 "${CPU_ONLY[@]}" "$PY" bench/bench_function.py --rounds 1 --steps 1 --repeats 1 --no-tensorflow
  step 08-bench-mixed-precision 60 "$PY" bench/bench_mixed_precision.py --steps 2 --batch-size 64 --models mlp
  step 09-bench-distribute 60 "${CPU_ONLY[@]}" "$PY" bench/bench_distribute.py --cpus 2 --max-size-log2 14
  step 10-profile-ops 60 "${CPU_ONLY[@]}" "$PY" bench/profile_ops.py --model mlp --batch 8 --steps 1 --warmup 1 --explain-host
else
  # The real run (H200 on 11-27: 284 s in all; tests/gpu 27 s once the selftest compiled the kernels, 125 s on
  # a fresh machine without it). The budget, not the limits' sum, bounds the run; NVRTC compiles each kernel
  # family once (the cache above), in the selftest.
  step 00-setup 15 bash -c "nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | sed 's/^/GPU: /'; $PY -c 'import sys, tfcore, tfcore.kernels, tfcore.distribute; print(sys.version); print(tfcore.__file__, tfcore.distribute.__file__)'; $PY -c 'import torch; print(\"PyTorch\", torch.__version__, \"CUDA\", torch.version.cuda, \"cuDNN\", torch.backends.cudnn.version())' 2>&1 | tail -n 1"
  step 01-info 120 "$PY" -m tfcore info   # builds the native CPU library on a fresh machine (one unit: ~75 s)
  PER_TEST=$("$PY" -c 'import pytest_timeout' >/dev/null 2>&1 && echo "--timeout=60")  # a hung test costs 60 s
  step 02-selftest 100 "$PY" -m tfcore selftest --no-timings --json "$RESULTS/selftest.json"
  step 03-tests-gpu 200 "$PY" -m pytest -v -rfE --tb=short -p no:cacheprovider -o addopts= --durations=10 $PER_TEST tests/gpu
  step 04-bench-kernels 55 "$PY" -m tfcore bench all --repeat 5
  step 05-bench-train-fp32 50 "$PY" -m tfcore bench train --steps 10 --repeats 3
  step 06-bench-train-tf32 50 "$PY" -m tfcore bench train --steps 10 --repeats 3 --tf32
  step 07-bench-function 35 "$PY" bench/bench_function.py --rounds 2 --steps 10 --repeats 1 --no-tensorflow
  step 08-bench-mixed-precision 40 "$PY" bench/bench_mixed_precision.py --steps 20 --batch-size 1024
  step 09-bench-distribute 40 "$PY" bench/bench_distribute.py --cpus 2 --gpu-split 2 --memory-limit 8192 --max-size-log2 26
  # Where an eager ResNet50 step's time goes, per op: calls, host dispatch and synced time (0.08x on 11-27)
  step 10-profile-ops 60 "$PY" bench/profile_ops.py --model resnet50 --batch 32 --steps 2 --top 30 --explain-host
fi
report
echo
cat "$RESULTS/summary.md" 2>/dev/null | head -n 60
echo "gpu_run.sh: done in $(( $(date +%s) - START ))s; results in $RESULTS"
exit 0
