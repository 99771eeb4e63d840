#!/usr/bin/env bash
# Runs every test at LRNN_SCALE=ci: unit tests of lrnn_core, every chapter executed under nbval
# (with LRNN_SEED=0 and with LRNN_SEED=1),
# the checks that a failing chapter fails the build and the tests, and the browser test of the website.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
# The browser test needs Debian's headless Chromium; install it when we can (root), else that test skips.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing chromium for the browser test"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "could not install chromium; the browser test will say so"
fi
export LRNN_SCALE=ci
# The chapters hold their exercises' solutions (every check must pass); the second seed runs the
# student notebooks, whose kernel sets LRNN_EXERCISES=student (every check: "not attempted").
export LRNN_EXERCISES=solved
# Two pytest workers share the CPU: one BLAS thread each avoids oversubscription (3-5x slower SVDs on 2 cores).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# House checks first (ruff over the code and the chapters' code cells): they take seconds.
python scripts/lint.py
python scripts/chapters_to_notebooks.py _build/nbval
# Every chapter that records claims again with a second seed set (LRNN_SEED=1: disjoint seeds, see
# bookkit/seeds.py), so that no claim's assert holds only for the seeds it was written against (the
# book's reading rule 3); the performance appendix records none. These copies are the student
# notebooks (the foundations chapter's too: it has exercises), with every solution left out and
# each code exercise a stub, so that one run shows both that the claims hold at a second seed and
# that a student's notebook runs top to bottom before any exercise is done. They name a kernel that
# runs with LRNN_SEED=1 (and Matplotlib's agg backend: the seed-0 runs draw every figure, these
# check the asserts), so one pytest run holds both seed sets and its
# two workers stay busy to the end. Files are handed out in the order given (--no-loadscope-reorder;
# xdist's default sorts them by number of tests): the chapters first, the longest work, each at seed
# 1 after its seed-0 run has filled the JAX compilation cache (scripts/setup.sh), then the many
# short unit-test files, which fill the tail.
python scripts/chapters_to_notebooks.py _build/nbval-seed1 --seed 1 --student
export JUPYTER_PATH=$PWD/_build/nbval-seed1/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}
python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=15 --nbval-lax \
  _build/nbval _build/nbval-seed1 tests "$@"
