#!/bin/bash
# How the last part of results/orvieto_fig4_gpu.json was run: one process per Fig 4 cell, side by
# side on one GPU (each JAX process takes a tenth of its memory), every part written to $OUT and
# joined afterwards with `scripts/reconstruction_cpu_runs.py --merge`. The eighth process is a
# learning-rate probe whose numbers stay in the log. Usage, from a copy of the commit COMMIT:
#   OUT=/path/to/parts bash scripts/reconstruction_gpu_parts.sh COMMIT 9370
set -u
C=$1; S=$2; PY=${PY:-python3}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=0.1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >> "$OUT/log.txt" 2>&1
run() {
  name=$1; shift
  ( $PY scripts/reconstruction_cpu_runs.py --plan gpu --steps "$S" --budget-s 300 --commit "$C" \
      --out "${OUT_PROBE:-$OUT}/$name.json" "$@" 2>&1 | sed -u "s/^/[$name] /" >> "$OUT/log.txt" ) &
}
for N in 128 512; do run "mnist$N" --cells "MNIST:$N"; done
for N in 64 128 256 512 1024; do run "pf$N" --cells "PathFinder substitute:$N"; done
OUT_PROBE=/tmp run probe --cells MNIST:64 --heads MLP --lr 3e-3
wait
