#!/usr/bin/env bash
# Builds the website into _build/html, executing every chapter at LRNN_SCALE (default: book).
# Fails (non-zero exit) if any cell raises or Sphinx warns.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
export LRNN_SCALE=${LRNN_SCALE:-book}
echo "Building the book at LRNN_SCALE=$LRNN_SCALE"
jupyter-book build . -W --keep-going
echo "Website: $(pwd)/_build/html/index.html"
