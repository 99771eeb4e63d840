"""The house checks run by scripts/test.sh: ruff over the code, and over the chapters' code cells.

``ruff check`` and ``ruff format --check`` run over src/, tests/, scripts/ and benchmarks/ (line
length 100, pyproject.toml). The chapters' code cells are extracted with jupytext into a temporary
folder and checked with a line length of 88, so that no line is cut on the website.
Usage: ``python scripts/lint.py`` (exit status non-zero on any finding).
"""

from __future__ import annotations

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
    """Write each chapter's code cells as a notebook under ``out``; return the files. Ruff reads
    notebooks as Jupyter does: the install cell's ``%pip`` is a magic, and a figure call ending a
    cell with ``;`` (Jupyter's way to show the figure once, not also the returned object) is
    not a useless semicolon."""
    files = []
    for chapter in sorted((ROOT / "book").rglob("*.md")):
        if "```{code-cell}" not in chapter.read_text():
            continue
        target = out / chapter.relative_to(ROOT).with_suffix(".ipynb")
        target.parent.mkdir(parents=True, exist_ok=True)
        notebook = jupytext.read(chapter)
        notebook.cells = [c for c in notebook.cells if c.cell_type == "code"]
        for cell in notebook.cells:  # options are checked as text: long_option_lines
            cell.metadata = {}
        target.write_text(jupytext.writes(notebook, fmt="ipynb"))
        files.append(target)
    return files


def long_option_lines() -> list[str]:
    """``path:line`` of every line over the chapter line length in a code cell's options (the
    ``---`` YAML block of a figure's name and caption), which the website shows with the cell."""
    found = []
    for chapter in sorted((ROOT / "book").rglob("*.md")):
        in_options = False
        lines = chapter.read_text(encoding="utf-8").splitlines()
        for number, (before, line) in enumerate(
            zip(["", *lines[:-1]], lines, strict=True), start=1
        ):
            if line == "---" and before.startswith(("```{code-cell}", "````{code-cell}")):
                in_options = True
            elif line == "---" and in_options:
                in_options = False
            elif in_options and len(line) > CHAPTER_LINE_LENGTH:
                found.append(f"{chapter.relative_to(ROOT)}:{number}")
    return found


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
    long = long_option_lines()
    if long:
        print(f"cell options over {CHAPTER_LINE_LENGTH} characters: {', '.join(long)}")
    return status | bool(long)


if __name__ == "__main__":
    sys.exit(main())
