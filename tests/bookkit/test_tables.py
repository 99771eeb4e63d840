"""ClaimTable: Markdown rendering (escaping), the JSON record, and what it refuses."""

import json

import pytest

from lrnn_core.bookkit.tables import COLUMNS, ClaimRow, ClaimTable, records_dir


def test_markdown_has_one_line_per_row_and_escapes_pipes(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "ci")
    table = ClaimTable("orvieto/memorisation")
    table.add("Orvieto Prop 1", paper="|x| < 1e-6", ours="max error 1e-14", holds=True)
    table.add("Orvieto Fig 2", paper="grows", ours="cond 1e3\nat N = 64", holds=False)
    lines = table.markdown().splitlines()
    assert lines[0] == "| claim | paper (as printed) | ours | scale | holds |"
    assert lines[1] == "|---|---|---|---|---|"
    assert lines[2] == r"| Orvieto Prop 1 | \|x\| < 1e-6 | max error 1e-14 | ci | yes |"
    assert lines[3] == "| Orvieto Fig 2 | grows | cond 1e3 at N = 64 | ci | no |"
    assert len(lines) == 4
    assert table._repr_markdown_() == table.markdown()


def test_save_round_trips_through_json(tmp_path, monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "book")
    table = ClaimTable("wang-li-li/memory-functions")
    row = table.add("Wang Thm 3.3", paper="rho ~ e^{-ct}", ours="c = 0.51 ± 0.02", holds=True)
    assert row == ClaimRow(
        "Wang Thm 3.3", "rho ~ e^{-ct}", "c = 0.51 ± 0.02", "book", True, "reproduced"
    )
    path = table.save(tmp_path / "claims")
    assert path == tmp_path / "claims" / "wang-li-li__memory-functions.json"
    record = json.loads(path.read_text())
    assert record["chapter"] == "wang-li-li/memory-functions"
    assert [tuple(r[c] for c in COLUMNS) for r in record["rows"]] == [
        ("Wang Thm 3.3", "rho ~ e^{-ct}", "c = 0.51 ± 0.02", "book", True, "reproduced")
    ]
    assert [ClaimRow(**r) for r in record["rows"]] == table.rows


@pytest.mark.parametrize("holds", [1, 0, "yes", "True", None, 1.0])
def test_holds_must_be_a_bool(holds):
    table = ClaimTable("x/y")
    with pytest.raises(TypeError, match="holds must be a bool"):
        table.add("c", paper="p", ours="o", holds=holds)
    assert table.rows == []


def test_numpy_bool_is_a_bool():
    import numpy as np

    table = ClaimTable("x/y")
    assert table.add("c", paper="p", ours="o", holds=np.bool_(True)).holds is True


def test_empty_table_raises():
    with pytest.raises(ValueError, match="has no rows"):
        ClaimTable("x/y").markdown()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"claim": ""}, ValueError, "claim must not be empty"),
        ({"paper": 3.0}, TypeError, "paper must be a str"),
        ({"ours": None}, TypeError, "ours must be a str"),
    ],
)
def test_cells_must_be_text(kwargs, error, match):
    args = {"claim": "c", "paper": "p", "ours": "o", "holds": True} | kwargs
    with pytest.raises(error, match=match):
        ClaimTable("x/y").add(args.pop("claim"), **args)


def test_chapter_must_be_text():
    with pytest.raises(TypeError, match="chapter must be a str"):
        ClaimTable(None)


@pytest.mark.parametrize(
    ("holds", "status", "expected"),
    [
        (True, None, "reproduced"),
        (False, None, "not reproduced"),
        (True, "weaker", "weaker"),
        (True, "reproduced", "reproduced"),
        (False, "not reproduced", "not reproduced"),
    ],
)
def test_status_defaults_from_holds(holds, status, expected):
    row = ClaimTable("x/y").add("c", paper="p", ours="o", holds=holds, status=status)
    assert row.status == expected


@pytest.mark.parametrize(
    ("holds", "status", "error", "match"),
    [
        (False, "weaker", ValueError, "contradicts"),
        (False, "reproduced", ValueError, "contradicts"),
        (True, "not reproduced", ValueError, "contradicts"),
        (True, "partly", ValueError, "status must be one of"),
        (True, 1, TypeError, "status must be a str"),
    ],
)
def test_status_must_agree_with_holds(holds, status, error, match):
    table = ClaimTable("x/y")
    with pytest.raises(error, match=match):
        table.add("c", paper="p", ours="o", holds=holds, status=status)
    assert table.rows == []


def test_records_dir_is_per_scale_and_seed_under_the_book(tmp_path, monkeypatch):
    (tmp_path / "_toc.yml").write_text("root: intro\n")
    (tmp_path / "book" / "part").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "book" / "part")
    monkeypatch.delenv("LRNN_RECORDS_DIR", raising=False)
    monkeypatch.setenv("LRNN_SCALE", "ci")
    monkeypatch.setenv("LRNN_SEED", "1")
    assert records_dir() == tmp_path / "_build" / "claims" / "ci-seed1"
    assert records_dir().is_dir()
    table = ClaimTable("part/chapter")
    table.add("c", paper="p", ours="o", holds=True)
    assert table.save() == tmp_path / "_build" / "claims" / "ci-seed1" / "part__chapter.json"
    monkeypatch.setenv("LRNN_RECORDS_DIR", str(tmp_path / "elsewhere"))
    assert records_dir() == tmp_path / "elsewhere" and records_dir().is_dir()
