"""A chapter whose cell raises must fail both the website build and the test command.

Each test plants a failing cell in a throwaway copy of a real chapter and runs the real tool on it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "foundations" / "linear-recurrences.md"
PLANTED = "planted failure: this cell must stop the build"


def planted_chapter() -> nbformat.NotebookNode:
    """The chapter's opening (its cells up to its second code cell) with a raising cell planted
    before its first code cell. nbval runs every cell after a failing one, so the rest of the
    chapter is left out: it would only add its run time."""
    nb = jupytext.read(CHAPTER)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    nb.cells = nb.cells[: code[1] + 1]
    nb.cells.insert(code[0], nbformat.v4.new_code_cell(f"raise RuntimeError({PLANTED!r})"))
    return nb


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LRNN_SCALE": "ci"}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_nbval_fails_on_a_raising_cell(tmp_path: Path) -> None:
    notebook = tmp_path / "planted.ipynb"
    nbformat.write(planted_chapter(), notebook)
    result = run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax", str(notebook)],
        tmp_path,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    assert PLANTED in result.stdout
    assert "1 failed" in result.stdout


@pytest.mark.slow
def test_book_build_fails_on_a_raising_cell(tmp_path: Path) -> None:
    book = tmp_path / "book"
    (book / "book").mkdir(parents=True)
    for name in ("_config.yml", "references.bib"):
        shutil.copy(ROOT / name, book / name)
    for folder in ("_static", "_ext"):
        shutil.copytree(ROOT / "book" / folder, book / "book" / folder)
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/planted\n")
    jupytext.write(planted_chapter(), book / "book" / "planted.md", fmt="md:myst")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = run([str(jupyter_book), "build", str(book), "-W"], tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert PLANTED in output
