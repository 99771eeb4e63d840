#!/usr/bin/env bash
# Creates .venv (if missing) with the pinned requirements and lrnn_core installed editable.
# Sourced by scripts/build.sh, scripts/test.sh and scripts/seed_check.sh; needs only Python 3.11 and pip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-nodeps.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  python -m pip install --disable-pip-version-check -q --upgrade pip
  # pip byte-compiles what it installs on one core (about 39 of its 72 s here); --no-compile and one
  # compileall on every core below make the .pyc files in about 25-30 s, leaving out the test suites
  # of the packages, pip and setuptools (22 % of the source, nothing the book imports; 6 s less).
  python -m pip install --disable-pip-version-check -q --no-compile -r requirements.txt
  python -m pip install --disable-pip-version-check -q --no-compile --no-deps -r requirements-nodeps.txt
  python -m pip install --disable-pip-version-check -q --no-compile --no-deps -e .
  python -m compileall -q -j 0 -x '/(tests?|pip|setuptools)/' \
    "$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null
  echo "$want" > "$stamp"
fi
# The library is installed editable, so pip byte-compiles none of it, and where PYTHONDONTWRITEBYTECODE
# is set no import does either: every kernel and test worker would compile its 16,000 lines again
# (about a second each). Compile them once here (compileall skips what is up to date).
python -m compileall -q src >/dev/null
# JAX's persistent compilation cache: a program one process compiled (a chapter at seed 0) is
# loaded, not compiled again, by every later process (the same chapter at seed 1, a unit test, a
# rebuild). Entries are keyed on the program, the compile options and the JAX/XLA versions, so a
# hit runs the executable a compile would have made: the numbers do not change (claim records
# compared field by field with and without it). It cuts the second run of a chapter that trains by
# about 40 % (memory-functions at ci: 88 s to 54 s). It lives in _build/ (delete it at will).
export JAX_COMPILATION_CACHE_DIR=${JAX_COMPILATION_CACHE_DIR:-$PWD/_build/jax-cache}
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=${JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS:-0}
export JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=${JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES:-0}
