"""The library's layout (issue 8): sub-packages that mirror the book, an import graph read with
``ast`` that keeps ``core`` free of papers and of the book, and tests that mirror the sources."""

import ast
import importlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

import lrnn_core

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lrnn_core"
TESTS = ROOT / "tests"

SHARED = {"core", "data", "bookkit"}  # the packages every part may import
# The paper packages: every sub-package of the library other than the shared ones (one per paper,
# and ``foundations``, the foundations chapter's part, held to the same rules: core and data only).
PAPERS = tuple(sorted({p.parent.name for p in SRC.glob("*/__init__.py")} - SHARED))
PACKAGES = (*sorted(SHARED), *PAPERS)
# The shape the developers' guide asks for: core (knows no paper) holds the scans, the eigenvalue
# laws, the Vandermonde tools, the LRU + MLP head, the one training loop and the validation; one
# sub-package per paper; data; the book kit. Every other module is found in the tree (MODULES) and
# held to the rules below (imports, a mirrored test file, a reference entry).
REQUIRED_MODULES = {
    "core": {"scan", "eigenvalues", "vandermonde", "lru", "train", "validate"},
    "orvieto": set(),
    "wang_li_li": set(),
    "wang_xue": set(),
    "data": set(),
    "bookkit": set(),
}
# Source modules without their own tests/<package>/test_<module>.py, each with the reason.
UNTESTED: dict[str, str] = {}


def _modules() -> dict[str, Path]:
    """``"package.module"`` (relative to lrnn_core) -> path, for every .py file in the library."""
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        out[".".join(rel.parts)] = path
    return out


def _imports(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ["lrnn_core", *path.relative_to(SRC).parent.parts]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            else:
                names.add(node.module)
    return names


def _package_of(name: str) -> str | None:
    """The lrnn_core sub-package an absolute module name belongs to (None if outside)."""
    parts = name.split(".")
    return parts[1] if parts[0] == "lrnn_core" and len(parts) > 1 else None


MODULES = _modules()
# A module is named for an idea of the papers, not for a job (README, "Adding a chapter").
JOB_NAME = re.compile(r"_(report|verdicts|claims|checks)$")


def test_the_sub_package_tree_exists():
    for package, modules in REQUIRED_MODULES.items():
        assert (SRC / package / "__init__.py").is_file(), package
        have = {p.stem for p in (SRC / package).glob("*.py")} - {"__init__"}
        assert modules <= have, (package, sorted(modules - have))
    flat = {p.stem for p in SRC.glob("*.py")} - {"__init__"}
    assert not flat, f"modules left at the top level of lrnn_core: {sorted(flat)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("core.")))
def test_core_imports_no_paper_and_no_bookkit(module):
    bad = {n for n in _imports(MODULES[module]) if _package_of(n) in (*PAPERS, "bookkit")}
    assert not bad, f"lrnn_core.{module} imports {sorted(bad)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.split(".")[0] in PAPERS))
def test_paper_packages_import_neither_each_other_nor_bookkit(module):
    """A paper package rests on core and data only: the book kit (tables, widgets, timing) sits
    above the papers, and a concept two papers share belongs in core."""
    own = module.split(".")[0]
    above = (set(PAPERS) - {own}) | {"bookkit"}
    bad = {n for n in _imports(MODULES[module]) if _package_of(n) in above}
    assert not bad, f"lrnn_core.{module} imports {sorted(bad)}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_nothing_imports_the_book(module):
    bad = {n for n in _imports(MODULES[module]) if n.split(".")[0] == "book"}
    assert not bad, f"lrnn_core.{module} imports {sorted(bad)}"


def test_the_import_reader_sees_relative_and_absolute_imports(tmp_path, monkeypatch):
    """The checks above are only as good as :func:`_imports`; check it on a made-up module."""
    fake = SRC / "core" / "fake.py"
    tree = "from ..orvieto import sparse\nimport lrnn_core.bookkit.scale\nfrom . import scan\n"
    monkeypatch.setattr(Path, "read_text", lambda self: tree)
    names = _imports(fake)
    assert names == {"lrnn_core.orvieto", "lrnn_core.bookkit.scale", "lrnn_core.core"}
    assert {_package_of(n) for n in names} == {"orvieto", "bookkit", "core"}


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if not m.endswith("__init__") and "." in m)
)
def test_every_module_has_its_mirrored_test_file(module):
    if module in UNTESTED:
        pytest.skip(UNTESTED[module])
    package, name = module.rsplit(".", 1)
    test = TESTS / package.replace(".", "/") / f"test_{name}.py"
    assert test.is_file(), f"lrnn_core.{module} has no {test.relative_to(ROOT)}"


def test_no_module_is_named_for_a_job():
    assert JOB_NAME.search("orvieto.ode_report") and not JOB_NAME.search("orvieto.ode_flows")
    named_by_job = sorted(m for m in MODULES if JOB_NAME.search(m))
    assert not named_by_job, named_by_job


def test_tests_folders_mirror_the_packages():
    for package in PACKAGES:
        assert (TESTS / package).is_dir(), package
    for folder in TESTS.iterdir():
        if folder.is_dir() and not folder.name.startswith((".", "_")):
            assert folder.name in PACKAGES, f"tests/{folder.name} mirrors no package"


@pytest.mark.parametrize("name", lrnn_core.__all__)
def test_top_level_names_import(name):
    assert getattr(lrnn_core, name) is not None


@pytest.mark.parametrize("package", PACKAGES)
def test_sub_packages_import(package):
    importlib.import_module(f"lrnn_core.{package}")


def _symbols_in_docstring() -> list[tuple[str, ...]]:
    """First-column symbols of the notation table in ``lrnn_core.__doc__``, row by row."""
    rows, inside, width = [], 0, 0
    for line in lrnn_core.__doc__.splitlines():
        if line.startswith("====="):
            inside, width = inside + 1, line.index(" ")
            continue
        if inside == 2 and line.startswith("``"):
            first = line[:width]
            assert line[width] == " ", f"notation row overflows its column: {line!r}"
            rows.append(tuple(s.strip().strip("`") for s in first.split(",")))
    return rows


def _symbols_in_intro() -> list[tuple[str, ...]]:
    """First-column symbols of the Notation table in ``book/intro.md``, row by row."""
    text = (ROOT / "book" / "intro.md").read_text()
    section = text.split("## Notation", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith("`"):
            rows.append(tuple(s.strip().strip("`") for s in cells[0].split(",")))
    return rows


def test_notation_table_is_the_same_in_the_docstring_and_the_introduction():
    doc, intro = _symbols_in_docstring(), _symbols_in_intro()
    assert len(doc) >= 10
    assert doc == intro


def _toc_chapters() -> list[Path]:
    """The pages of ``_toc.yml`` (root, chapters and their sections), as paths of ``.md`` files."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))

    def files(entries: list[dict]) -> list[str]:
        return [
            f
            for e in entries
            for f in ([e["file"]] if "file" in e else []) + files(e.get("sections", []))
        ]

    names = [toc["root"], *files([c for part in toc["parts"] for c in part["chapters"]])]
    return [ROOT / f"{name}.md" for name in names]


def _chapter_packages(chapter: Path) -> set[str]:
    """The lrnn_core sub-packages a chapter's code imports."""
    text = chapter.read_text(encoding="utf-8")
    return set(re.findall(r"^\s*(?:from|import) lrnn_core\.(\w+)", text, re.M))


def test_each_chapter_imports_one_part_only():
    """A chapter imports the shared packages (core, data, bookkit) and at most one paper package,
    the same for every chapter of its folder: a concept two parts share belongs in core. The paper
    packages are the library's sub-packages other than the shared ones."""
    # the book's three papers and its foundations part
    assert set(PAPERS) == {"foundations", "orvieto", "wang_li_li", "wang_xue"}, PAPERS
    per_folder: dict[str, set[str]] = {}
    for chapter in _toc_chapters():
        used = _chapter_packages(chapter) & set(PAPERS)
        assert len(used) <= 1, f"{chapter.relative_to(ROOT)} imports the packages {sorted(used)}"
        per_folder.setdefault(chapter.parent.name, set()).update(used)
    mixed = {folder: sorted(p) for folder, p in per_folder.items() if len(p) > 1}
    assert not mixed, f"chapters of one folder import different parts: {mixed}"


MAX_CELL_LINES = 30  # the project's rule: a chapter cell is a call, a figure, a row or an assert


def code_cell_lengths(text: str) -> list[tuple[int, int]]:
    """(first line, lines between the fences) of each MyST code cell, header and metadata in."""
    lines, cells, start = text.split("\n"), [], None
    for i, line in enumerate(lines, 1):
        if start is None and line.startswith("```{code-cell}"):
            start = i
        elif start is not None and line.startswith("```"):
            cells.append((start, i - start - 1))
            start = None
    return cells


def test_cell_length_counts_the_header_and_metadata():
    text = "x\n```{code-cell} ipython3\n---\nmystnb: {}\n---\na = 1\nb = 2\n```\n"
    assert code_cell_lengths(text) == [(2, 5)]


@pytest.mark.parametrize("chapter", sorted((ROOT / "book").rglob("*.md")), ids=str)
def test_no_chapter_cell_is_longer_than_30_lines(chapter):
    long = [c for c in code_cell_lengths(chapter.read_text()) if c[1] > MAX_CELL_LINES]
    assert not long, f"{chapter.name}: cells (first line, lines) over {MAX_CELL_LINES}: {long}"


def cell_metadata(text: str) -> list[tuple[int, str]]:
    """(first line, YAML text) of each MyST code cell's ``---`` metadata block."""
    lines, found = text.split("\n"), []
    for i, line in enumerate(lines):
        if line.startswith("```{code-cell}") and i + 1 < len(lines) and lines[i + 1] == "---":
            end = lines.index("---", i + 2)
            found.append((i + 1, "\n".join(lines[i + 2 : end])))
    return found


def test_cell_metadata_reader_finds_the_block():
    text = "```{code-cell} ipython3\n---\nmystnb:\n  figure: {name: a}\n---\nx = 1\n```\n"
    assert cell_metadata(text) == [(1, "mystnb:\n  figure: {name: a}")]
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("caption: a floor, 1e-5: at N")  # what the build rejected once


@pytest.mark.parametrize("chapter", sorted((ROOT / "book").rglob("*.md")), ids=str)
def test_every_cell_metadata_block_is_valid_yaml(chapter):
    for line, block in cell_metadata(chapter.read_text()):
        try:
            yaml.safe_load(block)
        except yaml.YAMLError as err:
            pytest.fail(f"{chapter.name}:{line}: cell metadata is not valid YAML: {err}")


SIZE_RECORDS = ("Sizes", "Plan")  # a callee whose name ends so builds a record of sizes


def code_cells(text: str) -> list[tuple[int, str]]:
    """(first line, source) of each MyST code cell; header, metadata and magic lines blanked so
    that the source's line numbers are the file's, counted from the cell's first line."""
    cells, lines, start = [], text.split("\n"), None
    for i, line in enumerate(lines, 1):
        if start is None and line.startswith("```{code-cell}"):
            start, body, state = i, [""], "head"
        elif start is not None and line.startswith("```"):
            cells.append((start, "\n".join(body)))
            start = None
        elif start is not None:
            if state == "head" and line == "---":
                state = "meta"
            elif state == "meta":
                state = "head" if line == "---" else "meta"
            elif not (state == "head" and line.startswith(":")):
                state = "code"
            magic = line.lstrip().startswith(("%", "!"))  # indented (under ``if``): ``pass``
            code = state == "code" and not magic
            indent = line[: len(line) - len(line.lstrip())]
            body.append(line if code else indent + "pass" if magic and indent else "")
    return cells


def cell_findings(
    text: str, reader: Callable[[str, int], list[tuple[int, str]]]
) -> list[tuple[int, str]]:
    """``reader(source, first_line)`` over every code cell of a chapter's ``text``: (line, name)
    with the chapter's line numbers."""
    return [found for start, source in code_cells(text) for found in reader(source, start)]


def chapter_problems(
    chapter: Path, reader: Callable[[str, int], list[tuple[int, str]]], say: Callable[[str], str]
) -> list[str]:
    """``path:line: say(name)`` for each of :func:`cell_findings` in ``chapter``."""
    text = chapter.read_text(encoding="utf-8")
    where = chapter.relative_to(ROOT)
    return [f"{where}:{line}: {say(name)}" for line, name in cell_findings(text, reader)]


def positional_size_records(source: str, first_line: int = 0) -> list[tuple[int, str]]:
    """(line, callee) of every call of a ``...Sizes``/``...Plan`` record with positional
    arguments: a reader must see which number is which, so these take keywords only."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name.endswith(SIZE_RECORDS):
                found.append((first_line + node.lineno - 1, name))
    return found


def test_the_size_record_reader_sees_positional_calls_in_cells():
    text = (
        "```{code-cell} ipython3\n---\ntags: [x]\n---\n%time y = 1\n"
        "S = ex.Sizes(1, n=2)\nP = Plan(*[a] * 3)\nok = Sizes(n=1)\nk = by_scale(ci=4)\n```\n"
        "```{code-cell} ipython3\n:tags: [hide-input]\n\nq = WidthSizes(8)\n```\n"
    )
    found = cell_findings(text, positional_size_records)
    assert found == [(6, "Sizes"), (7, "Plan"), (14, "WidthSizes")]


@pytest.mark.parametrize("chapter", _toc_chapters(), ids=lambda p: str(p.relative_to(ROOT)))
def test_chapters_build_size_records_by_keyword(chapter):
    bad = chapter_problems(
        chapter, positional_size_records, lambda name: f"{name}(...) with positional arguments"
    )
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_library_builds_size_records_by_keyword(module):
    found = positional_size_records(MODULES[module].read_text())
    bad = [f"lrnn_core.{module}:{line}: {name}(...)" for line, name in found]
    assert not bad, "positional arguments to a size record: " + ", ".join(bad)


# Names the notation table replaced (issue 23): each stands for a symbol of the table, which is
# the one name the library and the chapters use (N, M, D and their plurals Ns, Ds).
RETIRED_NAMES = {
    "hidden": "D",
    "width": "N or D",
    "widths": "Ns or Ds",
    "d_in": "M",
    "n_state": "N",
    "d_state": "N",
}


def retired_names(source: str, first_line: int = 0) -> list[tuple[int, str]]:
    """(line, name), in line order, of every parameter, assigned name, attribute or record field
    of ``source`` whose name the notation table retired (:data:`RETIRED_NAMES`). Keyword arguments
    are not read: ours follow the parameters, and other libraries' (``Layout(width=...)``) are
    theirs."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.arg):
            name = node.arg
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            name = node.id
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            name = node.attr
        else:
            continue
        if name in RETIRED_NAMES:
            found.append((first_line + node.lineno - 1, name))
    return sorted(found)


def test_the_retired_name_reader_sees_every_kind_of_name():
    source = (
        "def f(a, width=1, *, hidden=()):\n    pass\n"
        "class S(NamedTuple):\n    widths: tuple\n"
        "self.d_in = 2\nm = Model(n_state=3)\nfor d_state in x:\n    pass\n"
        "N = width_of(x); y = f(D=4, width=5)\n"
    )
    assert retired_names(source, 10) == [
        (10, "hidden"), (10, "width"), (13, "widths"), (14, "d_in"), (16, "d_state"),
    ]  # fmt: skip


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_library_names_sizes_by_the_notation_table(module):
    found = retired_names(MODULES[module].read_text())
    bad = [f"lrnn_core.{module}:{line}: {name} (say {RETIRED_NAMES[name]})" for line, name in found]
    assert not bad, "names the notation table retired: " + ", ".join(bad)


@pytest.mark.parametrize("chapter", _toc_chapters(), ids=lambda p: str(p.relative_to(ROOT)))
def test_chapters_name_sizes_by_the_notation_table(chapter):
    bad = chapter_problems(chapter, retired_names, lambda n: f"{n} (say {RETIRED_NAMES[n]})")
    assert not bad, "\n".join(bad)


# --- A thin library under chapters that decide each claim on their page (issue 36) ---------------

JOB_NAMES = re.compile(r"_(report|verdicts|claims|checks)$")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_are_named_for_ideas_not_jobs(module):
    """A ``_report``, ``_verdicts``, ``_claims`` or ``_checks`` module is a claim's rule that left
    its page: the rule belongs in the chapter, beside its figure."""
    assert not JOB_NAMES.search(module), f"{module} is named for a job; name it for its idea"


LIBRARY_ROW = re.compile(r"table\.add\(\s*\*\*|\.row\(\)")


@pytest.mark.parametrize("chapter", _toc_chapters(), ids=lambda p: str(p.relative_to(ROOT)))
def test_chapters_state_each_claim_once_on_the_page(chapter):
    """Every ``table.add`` names its measured values on the page; none adds a row that the
    library built (``table.add(**row)``, ``.row()``)."""
    found = [(line, code) for line, code in code_cells(chapter.read_text())
             if LIBRARY_ROW.search(code)]  # fmt: skip
    assert not found, f"{chapter.name}: rows built in the library at cells {found}"


@pytest.mark.parametrize(
    "chapter",
    # the report and the teaching page hide all their code
    [c for c in _toc_chapters() if c.name not in ("report.md", "teaching.md")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_install_and_import_cells_are_folded_on_the_website(chapter):
    """The first two code cells (the install cell, the imports) carry ``hide-input``: folded on
    the website, unchanged in Colab (which ignores the tag)."""
    text = chapter.read_text()
    heads = [
        m.group(1) for m in re.finditer(r"^```\{code-cell\}[^\n]*\n(:tags:[^\n]*)?", text, re.M)
    ]
    if not heads:
        return
    assert all(h and "hide-input" in h for h in heads[:2]), (chapter.name, heads[:2])
