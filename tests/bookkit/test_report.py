"""The reproduction report: claim ids read from chapters, statuses from records, the Markdown table,
and the book's own claims against the spec's index."""

import json
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from lrnn_core.bookkit.report import (
    MISSING,
    NOT_COVERED,
    REPORT_STATUSES,
    ReportRow,
    SpecClaim,
    build_report,
    chapter_claims,
    chapter_link,
    code_cells,
    counts_markdown,
    covered_claims,
    details_markdown,
    read_index,
    read_records,
    report_markdown,
    section_anchor,
    shorten,
    status_counts,
    trained_summary,
    verdict,
)
from lrnn_core.bookkit.tables import ClaimRow, ClaimTable

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
    measured={"x": 1 + 1},
    holds=True,
)
other.add("not a claim")
table.add("P Fig 2", paper="y", note="z", holds=False)
```
"""

SPEC = [SpecClaim("P Fig 1", "P (2024)", "Fig 1"), SpecClaim("P Fig 2", "P (2024)", "Fig 2")]
SPEC.append(SpecClaim("P Fig 3", "P (2024)", "Fig 3"))


def test_code_cells_drop_options_and_magics():
    first, second = code_cells(CHAPTER)
    assert first.splitlines() == ["", "", "", 'table = ClaimTable("part/chapter")']
    assert second.startswith("\ntable.add(\n") and "mystnb" not in second
    install = "```{code-cell} ipython3\nif missing:\n    %pip install x\n!ls\n```\n"
    assert code_cells(install) == ["if missing:\n    pass\n\n"]  # still Python: ast can read it


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
        note="grows 3x",
        holds=True,
        status="weaker",
        error=0.01,
        baselines={"ignores input": 0.5, "linear": 0.2},
        margin=10.0,
        control="a linear filter",
        control_rejected=True,
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
            "error 0.01; ignores input 0.5, linear 0.2: ×20 below the better baseline (needs ×10)",
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
    table.add("P Fig 9", paper="p", note="o", holds=False)
    table.save(tmp_path)
    covered = {"P Fig 9": "part/chapter"} if where == "covered" else {}
    records = read_records(tmp_path) if where == "records" else {}
    with pytest.raises(ValueError, match=r"not in the reproduction spec: \['P Fig 9'\]"):
        build_report(SPEC, covered, records)


def test_markdown_puts_status_first_links_claims_and_escapes_cells():
    rows = [
        ReportRow(
            "P Fig 1", "P", "Fig 1", "|x|", "a|b; c", "book", "reproduced", "part/ch", "", "c"
        ),
        ReportRow("P Fig 3", "P", "Fig 3", "", "", "", NOT_COVERED, ""),
    ]
    lines = report_markdown(rows, link=lambda r: f"{r.chapter}.md").splitlines()
    assert lines[0] == "| status | claim | verdict |"
    assert lines[1] == "|---|---|---|"
    assert lines[2] == r"| reproduced | [`P Fig 1`](part/ch.md) | a\|b |"
    assert lines[3] == "| not yet covered | `P Fig 3` | — |"


def test_the_verdict_is_the_trained_factor_or_the_first_measured_value():
    summary = "error 0.00031; ignores input 0.062, linear 0.0075: ×24 below the better baseline"
    trained = ReportRow("P Fig 1", "P", "Fig 1", "p", "x 1; y 2", "ci", "reproduced", "c", summary)
    assert verdict(trained) == "×24 below the better baseline"
    plain = replace(trained, baselines="", ours="median norm 7.8e9; draws 16")
    assert verdict(plain) == "median norm 7.8e9"
    long = replace(plain, ours="word " * 40)
    assert verdict(long) == "word " * 16 + "word…"  # cut at the last space within 90 characters


def test_details_fold_each_papers_claims_in_full():
    summary = "error 0.1; ignores input 1, linear 0.5: ×5 below the better baseline (needs ×2)"
    rows = [
        ReportRow(
            "P Fig 1",
            "P & Q",
            "Fig 1",
            "p",
            ("ours " * 30).strip(),
            "ci",
            "weaker",
            "c",
            summary,
            "n",
        ),
        ReportRow("R Fig 2", "R", "Fig 2", "", "", "", NOT_COVERED, ""),
    ]
    text = details_markdown(rows, link=lambda r: "c.html")
    blocks = text.split("\n\n</details>")
    assert blocks[0].startswith("<details><summary>P &amp; Q: the 1 claims in full</summary>\n")
    assert blocks[1].lstrip().startswith("<details><summary>R: the 1 claims in full</summary>")
    line = blocks[0].splitlines()[-1]
    assert line == (f"| [`P Fig 1`](c.html) | p | {('ours ' * 30).strip()} · {summary} | n | ci |")


@pytest.mark.parametrize(
    "text, max_chars, expected",
    [
        ("short text", 10, "short text"),  # fits exactly: unchanged
        ("short  text\n", 10, "short text"),  # whitespace runs become one space
        ("one two three", 12, "one two…"),  # cut at the last space that leaves room for "…"
        ("one two, three", 13, "one two…"),  # no dangling comma before the ellipsis
        ("abcdefghij", 5, "abcd…"),  # one long word is cut mid-word
        ("", 5, ""),
    ],
)
def test_shorten(text, max_chars, expected):
    assert shorten(text, max_chars) == expected
    assert len(shorten(text, max_chars)) <= max_chars


@pytest.mark.parametrize("max_chars", [1, 0, 2.5, True])
def test_shorten_refuses_a_bad_length(max_chars):
    with pytest.raises(ValueError, match="max_chars must be an int >= 2"):
        shorten("text", max_chars)


def _trained(error, baselines, margin, status="weaker"):
    return ClaimRow(
        "P Fig 1",
        "p",
        "o",
        "ci",
        status != "not reproduced",
        status,
        error,
        baselines,
        margin,
        "a linear filter, rejected",
    )


@pytest.mark.parametrize(
    "row, expected",
    [
        (
            _trained(3.1e-4, {"ignores input": 6.2e-2, "linear": 7.5e-3}, 21, "reproduced"),
            "error 0.00031; ignores input 0.062, linear 0.0075: "
            "×24 below the better baseline (needs ×21)",
        ),
        (  # the linear map is the better baseline: 0.33 / 0.069 = 4.8
            _trained(0.069, {"ignores input": 0.39, "linear": 0.33}, 53),
            "error 0.069; ignores input 0.39, linear 0.33: ×4.8 below the better baseline "
            "(needs ×53)",
        ),
        (  # worse than the linear map: 9.6e-4 / 4e-6 = 240 times above it
            _trained(9.6e-4, {"ignores input": 9.9e-4, "linear": 4e-6}, 10, "not reproduced"),
            "error 0.00096; ignores input 0.00099, linear 4e-06: ×240 above the better baseline "
            "(needs ×10 below)",
        ),
        (  # just under its margin (0.0479 / 0.00441 = 10.86 < 10.94): the digits tell them apart
            _trained(4.41e-3, {"ignores input": 0.0813, "linear": 0.0479}, 10.94, "weaker"),
            "error 0.0044; ignores input 0.081, linear 0.048: ×10.86 below the better baseline "
            "(needs ×10.94)",
        ),
        (
            _trained(0.0, {"ignores input": 1.0, "linear": 0.5}, 2),
            "error 0; ignores input 1, linear 0.5: below every baseline (error 0)",
        ),
        (ClaimRow("P Fig 1", "p", "o", "ci", False, "not reproduced"), ""),
    ],
)
def test_trained_summary_states_the_factor_below_the_better_baseline(row, expected):
    assert trained_summary(row) == expected


def _record(tmp_path, row: ClaimRow):
    (tmp_path / "c.json").write_text(
        json.dumps({"chapter": "part/chapter", "rows": [asdict(row)]}), encoding="utf-8"
    )
    return read_records(tmp_path)


def test_a_reproduced_record_short_of_its_margin_is_refused(tmp_path):
    # 0.02 / 0.01 = 2 < 10: ClaimTable.add would have refused it; a stale or edited record
    row = _trained(0.01, {"ignores input": 0.5, "linear": 0.02}, 10, "reproduced")
    with pytest.raises(ValueError, match=r"'P Fig 1'.*only ×2 below the better baseline, not ×10"):
        build_report(SPEC, {}, _record(tmp_path, row))
    ok = replace(row, baselines={"ignores input": 0.5, "linear": 0.1})  # ×10: enough
    assert build_report(SPEC, {}, _record(tmp_path, ok))[0].status == "reproduced"


@pytest.mark.parametrize("status", ["reproduced", "weaker"])
def test_a_record_without_a_negative_control_is_refused(tmp_path, status):
    row = ClaimRow("P Fig 1", "p", "o", "ci", True, status)
    with pytest.raises(ValueError, match=f"is '{status}' but names no negative control"):
        build_report(SPEC, {}, _record(tmp_path, row))


def _rows(*papers_and_statuses):
    return [
        ReportRow(f"C{i}", paper, "Fig 1", "", "", "", status, "")
        for i, (paper, status) in enumerate(papers_and_statuses)
    ]


def test_status_counts_count_every_paper_and_status():
    rows = _rows(("A", "reproduced"), ("B", MISSING), ("A", "reproduced"), ("A", "weaker"))
    counts = status_counts(rows)
    assert list(counts) == ["A", "B"]  # order of first appearance
    assert counts["A"] == {**dict.fromkeys(REPORT_STATUSES, 0), "reproduced": 2, "weaker": 1}
    assert counts["B"] == {**dict.fromkeys(REPORT_STATUSES, 0), MISSING: 1}
    with pytest.raises(ValueError, match="status 'done'"):
        status_counts(_rows(("A", "done")))


def test_counts_markdown_has_a_line_per_paper_and_the_totals():
    rows = _rows(
        ("A", "reproduced"),
        ("B", MISSING),
        ("A", "reproduced"),
        ("A", "not reproduced"),
        ("B", NOT_COVERED),
        ("B", "weaker"),
    )
    lines = counts_markdown(rows).splitlines()
    assert lines[0] == (
        "| paper | reproduced | weaker | not reproduced | missing | not yet covered | all |"
    )
    assert lines[1] == "|---|---:|---:|---:|---:|---:|---:|"
    assert lines[2:] == [
        "| A | 2 | 0 | 1 | 0 | 0 | 3 |",
        "| B | 0 | 1 | 0 | 1 | 1 | 3 |",
        "| **all papers** | 2 | 1 | 1 | 1 | 1 | 6 |",
    ]
    with pytest.raises(ValueError, match="no report rows"):
        counts_markdown([])


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
    table.add("P Fig 2", paper="p", note="o", holds=False)
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
