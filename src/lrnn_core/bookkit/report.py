r"""The reproduction report: one row per claim of the reproduction spec, built from the records the
chapters write when they execute (:meth:`lrnn_core.bookkit.tables.ClaimTable.add`), never typed in.

A claim's status is the one its chapter recorded (``reproduced``, ``weaker``, ``not reproduced``);
``missing`` if a chapter adds the claim to its table but left no record (it did not run at this
scale and seed); ``not yet covered`` if no chapter adds it. The spec's claim ids are kept in the
book as a data file (``book/claims_index.csv``: claim, paper, item), read by :func:`read_index`.

The page shows the counts per paper and status (:func:`counts_markdown`), then one line per claim
(:func:`report_markdown`): status first, the claim linked to the section of its chapter, and a
one-line verdict with the key number (:func:`verdict`): for a trained row how far below the better
of its two baselines its test error is, :math:`\min_b e_b / e`, against the margin fixed in its
chapter (:func:`~lrnn_core.bookkit.tables.trained_summary`); else the first measured value. The
details of each paper's claims (the paper's value, ours in full, the negative control and its
outcome) follow, folded, one table per paper (:func:`details_markdown`).
"""

from __future__ import annotations

import ast
import csv
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from docutils.nodes import make_id

from lrnn_core.bookkit.tables import STATUSES, ClaimRow, trained_summary
from lrnn_core.core.validate import check_type
from lrnn_core.core.verdicts import beats

MISSING = "missing"
NOT_COVERED = "not yet covered"
#: Every status a report row can have, in the order of the counts table's columns.
REPORT_STATUSES = (*STATUSES, MISSING, NOT_COVERED)
#: The most characters of a verdict taken from ours (:func:`verdict`).
#: A trained factor is never cut.
VERDICT_CHARS = 90
_CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.S | re.M)
_FENCE = re.compile(r"^(`{3,}).*?^\1\s*$", re.S | re.M)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*$", re.M)
# A reference in an item or a heading: "Fig 7c", "Figs. 10–11", "Figs 7 and 8", "§3.1.1", "App. C".
_NUMBER = r"(?:[0-9]+[a-z]?(?:\.[0-9]+)*|[A-Z]\b)"
_REFERENCE = re.compile(
    rf"(?P<kind>Figures?|Figs?|Tables?|Props?|Thms?|Theorems?|App|§)\.?\s*"
    rf"(?P<numbers>{_NUMBER}(?:\s*(?:–|-|,|and)\s*{_NUMBER})*)"
)
_KINDS = {"fig": "fig", "tab": "table", "pro": "prop", "thm": "thm", "the": "thm", "app": "app"}


@dataclass(frozen=True)
class SpecClaim:
    """One row of the spec: the claim id, the paper it comes from, and the item in that paper."""

    claim: str
    paper: str
    item: str


@dataclass(frozen=True)
class ReportRow:
    """One row of the report; ``chapter`` is the chapter's path under ``book/`` without ``.md``
    (empty if no chapter covers the claim); ``baselines`` the trained row's error beside its
    baselines and its factor below the better one
    (:func:`~lrnn_core.bookkit.tables.trained_summary`, empty for other rows);
    ``negative_control`` what the chapter's check rejected."""

    claim: str
    paper: str
    item: str
    paper_value: str
    ours: str
    scale: str
    status: str
    chapter: str
    baselines: str = ""
    negative_control: str = ""


def read_index(path: str | Path) -> list[SpecClaim]:
    """The spec's claims from a CSV file with the columns ``claim, paper, item``."""
    with Path(path).open(newline="", encoding="utf-8") as f:
        rows = [SpecClaim(**row) for row in csv.DictReader(f)]
    ids = [r.claim for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path} lists a claim id twice")
    return rows


def code_cells(text: str) -> list[str]:
    """The Python source of every code cell of a MyST chapter, without the cell's options (a
    ``---`` YAML block or ``:tags: ...`` lines) and IPython magics (blank lines in their place, or
    ``pass`` for an indented one: the install cell's ``%pip`` under ``if``)."""
    cells = []
    for cell in _CODE_CELL.findall(text):
        cell = re.sub(r"\A---\n.*?^---$", "", cell, flags=re.S | re.M)
        cell = re.sub(
            r"^:.*$|^([ \t]*)[%!].*$",
            lambda m: m.group(1) + "pass" if m.group(1) else "",
            cell,
            flags=re.M,
        )
        cells.append(cell)
    return cells


def chapter_claims(text: str) -> list[str]:
    """The claim ids a MyST chapter adds to its table: the first argument of every
    ``<table>.add("<claim>", ..., holds=...)`` call in its code cells."""
    claims = []
    for code in code_cells(text):
        for node in ast.walk(ast.parse(code)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add"
                and any(k.arg == "holds" for k in node.keywords)
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                claims.append(node.args[0].value)
    return claims


def covered_claims(book: str | Path) -> dict[str, str]:
    """Claim id -> chapter (path under ``book`` without ``.md``) for every chapter under ``book``.

    A claim added by two chapters is a ValueError: the report would not know which row to show.
    """
    book = Path(book)
    covered: dict[str, str] = {}
    for path in sorted(book.rglob("*.md")):
        chapter = path.relative_to(book).with_suffix("").as_posix()
        for claim in chapter_claims(path.read_text(encoding="utf-8")):
            if covered.setdefault(claim, chapter) != chapter:
                raise ValueError(f"{claim!r} is added by {covered[claim]} and by {chapter}")
    return covered


def _references(text: str) -> list[tuple[str, str]]:
    """``(kind, number)`` for every figure, table, proposition, theorem, section or appendix a
    text names; ranges of whole numbers are expanded ("Figs. 10–11" names Figs 10 and 11)."""
    out = []
    for m in _REFERENCE.finditer(text):
        kind = "sec" if m["kind"] == "§" else _KINDS[m["kind"][:3].lower()]
        numbers = re.findall(rf"{_NUMBER}|–|-", m["numbers"])
        for i, number in enumerate(numbers):
            if number in "–-":
                continue
            out.append((kind, number))
            if i + 2 < len(numbers) and numbers[i + 1] in "–-" and number.isdigit():
                if numbers[i + 2].isdigit():
                    out += [(kind, str(n)) for n in range(int(number) + 1, int(numbers[i + 2]))]
    return out


def section_anchor(text: str, item: str) -> str:
    """The HTML id of the first heading of a MyST chapter that names the first figure, table,
    proposition, ... of ``item`` (e.g. ``"Fig 10 (App. H)"`` -> a heading "Figs. 10–11: ...").

    Sphinx gives a section the id ``docutils.nodes.make_id`` of its title text; a title that two
    headings share gets a numbered id instead, so no anchor (``""``) is returned for it, nor when no
    heading names the item.
    """
    wanted = _references(item)[:1]
    if not wanted:
        return ""
    titles = [
        re.sub(
            r"\$([^$]*)\$|`([^`]*)`|\[([^\]]*)\]\([^)]*\)",
            lambda m: next(g for g in m.groups() if g is not None),
            t,
        )
        for t in _HEADING.findall(_FENCE.sub("", text))
    ]
    for title in titles:
        if wanted[0] in _references(title):
            return make_id(title) if titles.count(title) == 1 else ""
    return ""


def chapter_link(book: str | Path, row: ReportRow) -> str:
    """``<chapter>.html#<section>``: the section of the row's chapter that discusses its item
    (:func:`section_anchor`), or the chapter's page if none does; ``""`` if no chapter covers it."""
    if not row.chapter:
        return ""
    anchor = section_anchor(
        (Path(book) / f"{row.chapter}.md").read_text(encoding="utf-8"), row.item
    )
    return f"{row.chapter}.html" + (f"#{anchor}" if anchor else "")


def read_records(directory: str | Path) -> dict[str, tuple[str, ClaimRow]]:
    """Claim id -> (chapter, row) from every ``*.json`` record in ``directory`` (none if absent)."""
    records: dict[str, tuple[str, ClaimRow]] = {}
    for path in sorted(Path(directory).glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for row in record["rows"]:
            records[row["claim"]] = (record["chapter"], ClaimRow(**row))
    return records


def build_report(
    index: Iterable[SpecClaim],
    covered: Mapping[str, str],
    records: Mapping[str, tuple[str, ClaimRow]],
) -> list[ReportRow]:
    """One row per spec claim, in the spec's order.

    A claim id in ``covered`` or ``records`` that the spec does not list is a ValueError.
    """
    index = list(index)
    known = {c.claim for c in index}
    unknown = sorted((set(covered) | set(records)) - known)
    if unknown:
        raise ValueError(f"claim ids not in the reproduction spec: {unknown}")
    rows = []
    for spec in index:
        if spec.claim in records:
            chapter, row = records[spec.claim]
            _check_record(chapter, row)
            found = (row.paper, row.ours, row.scale, row.status, chapter)
            found += (trained_summary(row), row.negative_control or "")
        else:
            status = MISSING if spec.claim in covered else NOT_COVERED
            found = ("", "", "", status, covered.get(spec.claim, ""))
        rows.append(ReportRow(spec.claim, spec.paper, spec.item, *found))
    return rows


def _check_record(chapter: str, row: ClaimRow) -> None:
    """Refuse a record that :meth:`~lrnn_core.bookkit.tables.ClaimTable.add` would not have
    written: a "reproduced" trained row not below its baselines by its margin, a "reproduced" or
    "weaker" row without a negative control (a stale record, or one edited by hand)."""
    where = f"record of {row.claim!r} ({chapter})"
    if row.status not in STATUSES:
        raise ValueError(f"{where}: unknown status {row.status!r}; expected one of {STATUSES}")
    factor = row.below_baselines
    if (
        row.status == "reproduced"
        and row.error is not None
        and not beats(row.error, row.baselines, row.margin)
    ):
        raise ValueError(
            f"{where} is 'reproduced' but its error is only ×{factor:.3g} below the better "
            f"baseline, not ×{row.margin:g}: re-run the chapter"
        )
    if row.status != "not reproduced" and not row.negative_control:
        raise ValueError(
            f"{where} is {row.status!r} but names no negative control: re-run the chapter"
        )


def shorten(text: str, max_chars: int) -> str:
    """``text`` on one line (whitespace runs made one space), cut to at most ``max_chars``
    characters: at the last space that leaves room for an ellipsis ("…"), or mid-word if a single
    word is longer than that."""
    check_type("text", text, str)
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 2:
        raise ValueError(f"max_chars must be an int >= 2, got {max_chars!r}")
    text = " ".join(text.split())
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > 0:
        cut = cut[:space]
    return cut.rstrip(" ,;:.(—-") + "…"


def status_counts(rows: Iterable[ReportRow]) -> dict[str, dict[str, int]]:
    """Paper -> status -> number of rows, for every paper of ``rows`` (in order of first
    appearance) and every status of :data:`REPORT_STATUSES` (zeros included)."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        if row.status not in REPORT_STATUSES:
            raise ValueError(f"{row.claim!r} has status {row.status!r}; not in {REPORT_STATUSES}")
        paper = counts.setdefault(row.paper, dict.fromkeys(REPORT_STATUSES, 0))
        paper[row.status] += 1
    return counts


def counts_markdown(rows: Iterable[ReportRow]) -> str:
    """The number of claims per paper (one line each) and status (one column each), with the
    totals of each as the last line and column, as a GitHub-flavoured Markdown table."""
    counts = status_counts(rows)
    if not counts:
        raise ValueError("no report rows to count")
    total = {s: sum(c[s] for c in counts.values()) for s in REPORT_STATUSES}
    lines = [
        "| paper | " + " | ".join(REPORT_STATUSES) + " | all |",
        "|---|" + "---:|" * (len(REPORT_STATUSES) + 1),
    ]
    for paper, by_status in [*counts.items(), ("**all papers**", total)]:
        numbers = [by_status[s] for s in REPORT_STATUSES]
        lines.append(
            f"| {_cell(paper)} | " + " | ".join(map(str, numbers)) + f" | {sum(numbers)} |"
        )
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or "—"


def verdict(row: ReportRow) -> str:
    """A row's verdict on one line: for a trained row its factor below the better baseline against
    the margin it needs (from :func:`~lrnn_core.bookkit.tables.trained_summary`), else the first
    item of ours, cut to :data:`VERDICT_CHARS` (:func:`shorten`); ``""`` for a row not recorded."""
    if row.baselines:
        return row.baselines.split(": ", 1)[-1]
    return shorten(row.ours.split("; ")[0], VERDICT_CHARS)


def report_markdown(rows: Iterable[ReportRow], link: Callable[[ReportRow], str]) -> str:
    """The report as a GitHub-flavoured Markdown table, one line per claim: status, the claim
    (linked to ``link(row)``, the section of its chapter, e.g. :func:`chapter_link`) and its
    :func:`verdict`. Claim ids are shown as code, exactly as the spec and the chapters write them.
    """
    lines = ["| status | claim | verdict |", "|---|---|---|"]
    for r in rows:
        cells = [r.status, _claim(r, link), _cell(verdict(r))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def details_markdown(rows: Iterable[ReportRow], link: Callable[[ReportRow], str]) -> str:
    """Each paper's claims in full, folded (an HTML ``<details>`` block per paper around a
    Markdown table): the claim, the paper's value, ours (with a trained row's error beside its
    baselines), the negative control with its outcome, and the scale."""
    by_paper: dict[str, list[ReportRow]] = {}
    for r in rows:
        by_paper.setdefault(r.paper, []).append(r)
    blocks = []
    for paper, group in by_paper.items():
        lines = [
            f"<details><summary>{_html(paper)}: the {len(group)} claims in full</summary>\n",
            "| claim | paper's value | ours | negative control | scale |",
            "|---|---|---|---|---|",
        ]
        for r in group:
            ours = " · ".join(t for t in (r.ours, r.baselines) if t)
            cells = [_claim(r, link), r.paper_value, ours, r.negative_control, r.scale]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        blocks.append("\n".join(lines) + "\n\n</details>")
    return "\n\n".join(blocks)


def _claim(row: ReportRow, link: Callable[[ReportRow], str]) -> str:
    claim = f"`{_cell(row.claim)}`"
    return f"[{claim}]({link(row)})" if row.chapter else claim


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
