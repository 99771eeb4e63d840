"""Convert every executable MyST chapter under book/ to a notebook under OUT, keeping the
folder layout.

Used by scripts/test.sh so that nbval can execute the chapters:
``python scripts/chapters_to_notebooks.py OUT``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]


def executable_chapters() -> list[Path]:
    """The chapters with code cells, in a stable order."""
    return sorted(p for p in (ROOT / "book").rglob("*.md") if "```{code-cell}" in p.read_text())


def main(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    for chapter in executable_chapters():
        target = out / chapter.relative_to(ROOT).with_suffix(".ipynb")
        target.parent.mkdir(parents=True, exist_ok=True)
        jupytext.write(jupytext.read(chapter), target)
        print(f"{chapter.relative_to(ROOT)} -> {target}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/chapters_to_notebooks.py OUT_DIR")
    main(Path(sys.argv[1]).resolve())
