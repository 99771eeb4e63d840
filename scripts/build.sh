#!/usr/bin/env bash
# Builds the website into _build/html, executing the chapters at LRNN_SCALE (default: book).
# Fails (non-zero exit) if any cell raises or Sphinx warns.
#
# Chapters are executed through Jupyter Book's cache (_build/.jupyter_cache), by
# scripts/execute_chapters.py on one process per CPU: a rebuild re-executes only the chapters whose
# code changed. The cache keys a chapter on its code alone, so this script
# empties it (and re-reads every page) when the scale, the seed, the library (src/) or the pinned
# requirements differ from the last successful build's, and when LRNN_FRESH=1: a fresh clone, or a
# changed library, executes every chapter.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
export LRNN_SCALE=${LRNN_SCALE:-book}
export LRNN_SEED=${LRNN_SEED:-0}
# The chapters hold their exercises' solutions: a check that does not pass fails the build.
export LRNN_EXERCISES=solved
stamp=_build/.execution-stamp
want=$(
  {
    echo "LRNN_SCALE=$LRNN_SCALE LRNN_SEED=$LRNN_SEED"
    cat requirements.txt requirements-nodeps.txt
    find src -name '*.py' -print0 | sort -z | xargs -0 cat
  } | sha256sum | cut -d' ' -f1
)
fresh=()
if [ "${LRNN_FRESH:-0}" = 1 ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Executing every chapter (no cache for this scale, seed, library and requirements)"
  # The reproduction report must not show rows that a chapter no longer writes.
  rm -rf _build/.jupyter_cache "_build/claims/$LRNN_SCALE-seed$LRNN_SEED"
  fresh=(--all)
fi
echo "Building the book at LRNN_SCALE=$LRNN_SCALE LRNN_SEED=$LRNN_SEED"
# The chapters run side by side, one per CPU, into the cache the build reads (the performance appendix
# and the report run afterwards in the build, alone). A chapter that raises stops the build here.
python scripts/execute_chapters.py
jupyter-book build . -W --keep-going "${fresh[@]}"
echo "$want" > "$stamp"
echo "Website: $(pwd)/_build/html/index.html"
