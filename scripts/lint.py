"""The house checks run by scripts/test.sh: ruff over the code, and over the chapters' code cells.

``ruff check`` and ``ruff format --check`` run over src/, tests/, scripts/ and benchmarks/ (line
length 100, pyproject.toml). The chapters' code cells are extracted with jupytext into a temporary
folder and checked with a line length of 88, so that no line is cut on the website.
Usage: ``python scripts/lint.py`` (exit status non-zero on any finding).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]
CODE = ["src", "tests", "scripts", "benchmarks", "book/_ext"]
CHAPTER_LINE_LENGTH = 88
# Chapters import after a setup cell and show expressions as cell results; both are fine there.
CHAPTER_IGNORE = "E402,B018"


def chapter_sources(out: Path) -> list[Path]:
    """Write each chapter's code cells as a Python file under ``out``; return the files."""
    files = []
    for chapter in sorted((ROOT / "book").rglob("*.md")):
        if "```{code-cell}" not in chapter.read_text():
            continue
        target = out / chapter.relative_to(ROOT).with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        notebook = jupytext.read(chapter)
        notebook.cells = [c for c in notebook.cells if c.cell_type == "code"]
        for cell in notebook.cells:  # figure captions and tags are not code
            cell.metadata = {}
        text = jupytext.writes(notebook, fmt="py:percent")
        # jupytext comments out magics; an indented one (the install cell's ``%pip`` under ``if``)
        # becomes ``pass`` so that the extracted file stays valid Python.
        target.write_text(re.sub(r"^([ \t]+)# %", r"\1pass  # %", text, flags=re.M))
        files.append(target)
    return files


def run(args: list[str]) -> int:
    print("$", " ".join(args), flush=True)
    return subprocess.call(args, cwd=ROOT)


def main() -> int:
    ruff = [sys.executable, "-m", "ruff"]
    status = run([*ruff, "check", *CODE])
    status |= run([*ruff, "format", "--check", *CODE])
    with tempfile.TemporaryDirectory() as tmp:
        files = [str(f) for f in chapter_sources(Path(tmp))]
        settings = [f"--line-length={CHAPTER_LINE_LENGTH}", "--isolated"]
        select = ["--select=E,F,W,I,B", f"--ignore={CHAPTER_IGNORE},F722"]
        status |= run([*ruff, "check", *settings, *select, *files])
        status |= run([*ruff, "format", "--check", *settings, *files])
    return status


if __name__ == "__main__":
    sys.exit(main())
