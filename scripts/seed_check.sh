#!/usr/bin/env bash
# Runs chapters at LRNN_SCALE=book (or $LRNN_SCALE) once per seed given on the command line, so that
# no assert holds only for the seeds it was written against. Not part of CI (it takes long).
#
#   bash scripts/seed_check.sh SEED [SEED ...] [-- CHAPTER.md ...]
#
# Without chapters it runs every chapter that records claims (the set CI runs at a second seed:
# `python scripts/chapters_to_notebooks.py --claim-chapters`).
# Prints one line per chapter and seed (passed/FAILED and seconds), then a summary; exit status
# non-zero if any run failed. Each seed's claim records go to _build/claims/<scale>-seed<SEED>; the
# logs to _build/seed-check-logs (kept across calls: each call converts the chapters into a folder
# of its own, so two calls side by side neither share nor delete each other's files).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
seeds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do seeds+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
chapters=("$@")
if [ ${#seeds[@]} -eq 0 ]; then
  echo "usage: bash scripts/seed_check.sh SEED [SEED ...] [-- CHAPTER.md ...]" >&2
  exit 2
fi
if [ ${#chapters[@]} -eq 0 ]; then
  mapfile -t chapters < <(python scripts/chapters_to_notebooks.py --claim-chapters)
fi
export LRNN_SCALE=${LRNN_SCALE:-book}
out=_build/seed-check/run-$$
logs=_build/seed-check-logs
mkdir -p "$logs"
python scripts/chapters_to_notebooks.py "$out" >/dev/null
failed=0
summary=()
for seed in "${seeds[@]}"; do
  for chapter in "${chapters[@]}"; do
    nb="$out/${chapter%.md}.ipynb"
    [ -f "$nb" ] || { echo "no notebook for $chapter (not an executable chapter?)" >&2; exit 2; }
    start=$SECONDS
    if LRNN_SEED=$seed python -m pytest -q -p no:cacheprovider --nbval-lax "$nb" >"$logs/log-$seed-$(basename "${chapter%.md}").txt" 2>&1; then
      verdict=passed
    else
      verdict=FAILED
      failed=$((failed + 1))
    fi
    line="LRNN_SCALE=$LRNN_SCALE LRNN_SEED=$seed $chapter: $verdict in $((SECONDS - start)) s"
    echo "$line"
    summary+=("$line")
  done
done
rm -rf "$out"
echo "${#summary[@]} runs, $failed failed (logs: $logs/log-SEED-CHAPTER.txt)"
[ "$failed" -eq 0 ]
