#!/bin/bash
# How results/orvieto_ode_gpu.json was run: the ODE rows at the paper's sizes (PAPER_PLAN) with
# seeds 1-3 and rate 3e-3, one process per system side by side on one GPU, each fitting its epochs
# into BUDGET_S seconds (scripts/ode_runs.py --budget-s), then joined with --merge. From a copy of
# the commit COMMIT (git archive: no .git there):
#   OUT=/path/to/parts bash scripts/ode_gpu_parts.sh COMMIT 520
set -u
C=$1; B=$2; PY=${PY:-python3}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=0.3
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >> "$OUT/log.txt" 2>&1
for s in PT LV LZ; do
  ( $PY scripts/ode_runs.py --plan paper --seeds 1 2 3 --lrs 0.003 --budget-s "$B" --commit "$C" \
      --experiments "$s MLP" "$s linear" --out "$OUT/ode_$s.json" 2>&1 \
      | sed -u "s/^/[$s] /" >> "$OUT/log.txt" ) &
done
wait
$PY scripts/ode_runs.py --merge "$OUT"/ode_PT.json "$OUT"/ode_LV.json "$OUT"/ode_LZ.json \
  --out "$OUT/orvieto_ode_gpu.json" >> "$OUT/log.txt" 2>&1
