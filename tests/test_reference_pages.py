"""The library reference (book/reference/<package>.md) documents every module of the library, and
the table of contents lists every reference page."""

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lrnn_core"
PACKAGES = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").is_file())


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_has_an_entry(package: str) -> None:
    page = ROOT / "book" / "reference" / f"{package}.md"
    assert page.is_file(), f"{page} is missing"
    text = page.read_text(encoding="utf-8")
    modules = sorted(p.stem for p in (SRC / package).glob("*.py") if p.stem != "__init__")
    missing = [m for m in modules if f".. automodule:: lrnn_core.{package}.{m}\n" not in text]
    assert not missing, (
        f"{page.name} documents no {missing}: add an automodule block and an autosummary line"
    )
    listed = [m for m in modules if f"\n   {m}\n" in text]
    assert listed == modules, f"the autosummary of {page.name} lists {listed}, not {modules}"


def test_toc_lists_every_reference_page() -> None:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    pages = [f.removeprefix("book/reference/") for f in files if f.startswith("book/reference/")]
    assert sorted(pages) == PACKAGES, f"_toc.yml lists the reference pages {pages}"
