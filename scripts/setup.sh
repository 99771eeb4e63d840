#!/usr/bin/env bash
# Creates .venv (if missing) with the pinned requirements and lrnn_core installed editable.
# Sourced by scripts/build.sh and scripts/test.sh; needs only Python 3.11 and pip.
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
  python -m pip install --disable-pip-version-check -q -r requirements.txt
  python -m pip install --disable-pip-version-check -q --no-deps -r requirements-nodeps.txt
  python -m pip install --disable-pip-version-check -q --no-deps -e .
  echo "$want" > "$stamp"
fi
