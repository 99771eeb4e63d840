"""scripts/execute_chapters.py: the chapters it runs ahead of the build are the ones the build
would execute, and it stores them under the key the build looks them up by."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml
from jupyter_cache import get_cache
from myst_nb.core.read import myst_nb_reader_plugin, read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location(
    "execute_chapters", ROOT / "scripts/execute_chapters.py"
)
execute_chapters = importlib.util.module_from_spec(spec)
spec.loader.exec_module(execute_chapters)


def test_it_runs_every_chapter_with_code_but_the_forced_pages_and_the_timed_appendix():
    names = {p.relative_to(ROOT).with_suffix("").as_posix() for p in execute_chapters.chapters()}
    with_code = {
        name
        for name in execute_chapters.toc_files(ROOT / "_toc.yml")
        if "```{code-cell}" in (ROOT / f"{name}.md").read_text()
    }
    forced = {"book/report", "book/teaching"}  # execution_mode: force, never from the cache
    assert names == with_code - forced - {"book/appendices/performance"}
    assert "book/orvieto/conditioning" in names


def test_the_longest_chapters_go_first_and_are_chapters_it_runs():
    order = [p.relative_to(ROOT).with_suffix("").as_posix() for p in execute_chapters.chapters()]
    first = list(execute_chapters.LONGEST_FIRST)
    assert order[: len(first)] == first  # a renamed chapter would drop out of the head here


def test_a_forced_page_is_left_to_the_build(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "---\nmystnb:\n  execution_mode: force\n---\n\n```{code-cell} ipython3\n1\n```\n"
    )
    assert not execute_chapters.executes_from_cache(page)
    page.write_text("---\nkernelspec: {name: python3}\n---\n\n```{code-cell} ipython3\n1\n```\n")
    assert execute_chapters.executes_from_cache(page)


@pytest.mark.parametrize("page", execute_chapters.chapters(), ids=lambda p: p.stem)
def test_the_cache_key_is_the_one_the_build_looks_up(page, tmp_path):
    """The build (MyST-NB) reads a chapter with the book's Markdown extensions; the script stores
    it as jupyter-cache's MyST-NB reader plugin reads it. Equal keys: the build finds it."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    extensions = set(config["parse"]["myst_enable_extensions"])
    cache = get_cache(str(tmp_path / "cache"))
    as_built = read_myst_markdown_notebook(
        page.read_text(), config=MdParserConfig(enable_extensions=extensions), path=str(page)
    )
    _, want = cache.create_hashed_notebook(as_built)
    _, have = cache.create_hashed_notebook(myst_nb_reader_plugin(str(page)))
    assert have == want
    # the key sees the code: a changed cell is a different key
    changed = myst_nb_reader_plugin(str(page))
    code = next(c for c in changed.cells if c.cell_type == "code")
    code.source += "\n"
    assert cache.create_hashed_notebook(changed)[1] != want
