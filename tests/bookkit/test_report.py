"""The reproduction report: claim ids read from chapters, statuses from records, the Markdown table,
and the book's own claims against the spec's index."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from lrnn_core.bookkit.report import (
    MISSING,
    NOT_COVERED,
    ReportRow,
    SpecClaim,
    build_report,
    chapter_claims,
    chapter_link,
    code_cells,
    covered_claims,
    read_index,
    read_records,
    report_markdown,
    section_anchor,
)
from lrnn_core.bookkit.tables import ClaimTable

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "book" / "claims_index.csv"

CHAPTER = """
# A chapter

```{code-cell} ipython3
:tags: [remove-output]

%pip install nothing
table = ClaimTable("part/chapter")
```

Prose with table.add("not code", holds=True) is not read.

```{code-cell} ipython3
---
mystnb:
  figure:
    name: fig-p
---
table.add(
    "P Fig 1",
    paper="x",
    ours=f"{1 + 1}",
    holds=True,
)
other.add("not a claim")
table.add("P Fig 2", paper="y", ours="z", holds=False)
```
"""

SPEC = [SpecClaim("P Fig 1", "P (2024)", "Fig 1"), SpecClaim("P Fig 2", "P (2024)", "Fig 2")]
SPEC.append(SpecClaim("P Fig 3", "P (2024)", "Fig 3"))


def test_code_cells_drop_options_and_magics():
    first, second = code_cells(CHAPTER)
    assert first.splitlines() == ["", "", "", 'table = ClaimTable("part/chapter")']
    assert second.startswith("\ntable.add(\n") and "mystnb" not in second


def test_chapter_claims_reads_add_calls_in_code_cells_only():
    assert chapter_claims(CHAPTER) == ["P Fig 1", "P Fig 2"]


def test_covered_claims_maps_claims_to_chapters_and_refuses_duplicates(tmp_path):
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "chapter.md").write_text(CHAPTER)
    assert covered_claims(tmp_path) == {"P Fig 1": "part/chapter", "P Fig 2": "part/chapter"}
    (tmp_path / "part" / "again.md").write_text(CHAPTER)
    with pytest.raises(ValueError, match="'P Fig 1' is added by part/again and by part/chapter"):
        covered_claims(tmp_path)


def test_statuses_come_from_records_missing_and_not_covered(tmp_path, monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "ci")
    table = ClaimTable("part/chapter")
    table.add(
        "P Fig 1",
        paper="grows",
        ours="grows 3x",
        holds=True,
        status="weaker",
        error=0.01,
        baselines={"ignores input": 0.5, "linear": 0.2},
        margin=10.0,
        negative_control="a linear filter: rejected",
    )
    table.save(tmp_path)
    covered = {"P Fig 1": "part/chapter", "P Fig 2": "part/chapter"}
    rows = build_report(SPEC, covered, read_records(tmp_path))
    assert rows == [
        ReportRow(
            "P Fig 1",
            "P (2024)",
            "Fig 1",
            "grows",
            "grows 3x",
            "ci",
            "weaker",
            "part/chapter",
            "0.01; ignores input 0.5, linear 0.2: ×20 below (needs ×10)",
            "a linear filter: rejected",
        ),
        ReportRow("P Fig 2", "P (2024)", "Fig 2", "", "", "", MISSING, "part/chapter"),
        ReportRow("P Fig 3", "P (2024)", "Fig 3", "", "", "", NOT_COVERED, ""),
    ]


def test_read_records_of_a_missing_folder_is_empty(tmp_path):
    assert read_records(tmp_path / "nothing") == {}


@pytest.mark.parametrize("where", ["covered", "records"])
def test_unknown_claim_ids_are_refused(tmp_path, where):
    table = ClaimTable("part/chapter")
    table.add("P Fig 9", paper="p", ours="o", holds=False)
    table.save(tmp_path)
    covered = {"P Fig 9": "part/chapter"} if where == "covered" else {}
    records = read_records(tmp_path) if where == "records" else {}
    with pytest.raises(ValueError, match=r"not in the reproduction spec: \['P Fig 9'\]"):
        build_report(SPEC, covered, records)


def test_markdown_links_chapters_and_escapes_cells():
    rows = [
        ReportRow("P Fig 1", "P", "Fig 1", "|x|", "a\nb", "book", "reproduced", "part/ch"),
        ReportRow("P Fig 3", "P", "Fig 3", "", "", "", NOT_COVERED, ""),
    ]
    lines = report_markdown(rows, link=lambda r: f"{r.chapter}.md").splitlines()
    assert lines[0].count("|") == 9 and lines[1] == "|---|---|---|---|---|---|---|---|"
    assert lines[2] == (
        r"| `P Fig 1` | P | Fig 1 | \|x\| | a b | book | reproduced | [part/ch](part/ch.md) |"
    )
    assert lines[3] == "| `P Fig 3` | P | Fig 3 | — | — | — | not yet covered | — |"


def test_index_with_a_repeated_id_is_refused(tmp_path):
    path = tmp_path / "index.csv"
    path.write_text("claim,paper,item\nP Fig 1,P,Fig 1\nP Fig 1,P,Fig 1\n")
    with pytest.raises(ValueError, match="twice"):
        read_index(path)


def test_the_book_index_has_the_spec_rows():
    index = read_index(INDEX)
    papers = {c.paper for c in index}
    assert papers == {"Orvieto et al. (2024)", "Wang, Li & Li (2024)", "Wang & Xue (2023)"}
    # The spec's own count (its section 5): 23 Orvieto, 15 Wang-Li-Li and 10 Wang-Xue rows.
    counts = [sum(c.paper == p for c in index) for p in sorted(papers)]
    assert counts == [23, 10, 15]


def test_every_claim_id_of_a_chapter_is_in_the_spec():
    known = {c.claim for c in read_index(INDEX)}
    covered = covered_claims(ROOT / "book")
    unknown = {claim: chapter for claim, chapter in covered.items() if claim not in known}
    assert not unknown, f"claim ids unknown to the spec (book/claims_index.csv): {unknown}"


def test_record_round_trip_keeps_the_status(tmp_path):
    table = ClaimTable("a/b")
    table.add("P Fig 2", paper="p", ours="o", holds=False)
    record = json.loads(table.save(tmp_path).read_text())
    assert record["rows"][0]["status"] == "not reproduced"


SECTIONS = """
# A chapter

```{code-cell} ipython3
# Fig. 1 in a code comment is not a heading
```

## Fig. 2: the modulus controls $\\|V^+\\|$

## Figs. 10–12 and Table 3 (`code`)

## Exercises (§3.1.1)

## Exercises (§3.1.1)
"""


@pytest.mark.parametrize(
    "item, anchor",
    [
        ("Fig 2", "fig-2-the-modulus-controls-v"),
        ("Fig 11 (App. H)", "figs-1012-and-table-3-code"),
        ("Table 3", "figs-1012-and-table-3-code"),
        ("Fig 1", ""),  # only a code comment names it
        ("Fig 13", ""),
        ("§3.1.1 time counter", ""),  # two headings share the title: Sphinx numbers their ids
        ("no reference", ""),
    ],
)
def test_section_anchor_is_the_sphinx_id_of_the_first_heading_naming_the_item(item, anchor):
    assert section_anchor(SECTIONS, item) == anchor


def test_chapter_link_points_at_the_section_or_the_page(tmp_path):
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "ch.md").write_text(SECTIONS)
    row = ReportRow("P Fig 2", "P", "Fig 2", "", "", "", MISSING, "part/ch")
    assert chapter_link(tmp_path, row) == "part/ch.html#fig-2-the-modulus-controls-v"
    assert chapter_link(tmp_path, replace(row, item="Fig 9")) == "part/ch.html"
    assert chapter_link(tmp_path, replace(row, chapter="")) == ""
