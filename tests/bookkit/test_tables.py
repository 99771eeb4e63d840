"""ClaimTable: Markdown rendering (escaping), the JSON record, and what it refuses."""

import json

import pytest

from lrnn_core.bookkit.tables import (
    COLUMNS,
    ClaimRow,
    ClaimTable,
    fmt,
    records_dir,
    trained_summary,
)

NC = {"control": "a power-law memory", "control_rejected": True}


def test_markdown_has_one_line_per_row_and_escapes_pipes(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "ci")
    table = ClaimTable("orvieto/memorisation")
    table.add(
        "Orvieto Prop 1",
        paper="|x| < 1e-6",
        note="max error 1e-14",
        holds=True,
        control="repeated nodes",
        control_rejected=True,
    )
    table.add("Orvieto Fig 2", paper="grows", note="cond 1e3\nat N = 64", holds=False)
    lines = table.markdown().splitlines()
    assert lines[0] == "| status | claim | paper (as printed) | ours | negative control | scale |"
    assert lines[1] == "|---|---|---|---|---|---|"
    assert lines[2] == (
        r"| reproduced | Orvieto Prop 1 | \|x\| < 1e-6 | max error 1e-14 | "
        "repeated nodes: rejected | ci |"
    )
    assert lines[3] == "| not reproduced | Orvieto Fig 2 | grows | cond 1e3 at N = 64 | — | ci |"
    assert len(lines) == 4
    assert table._repr_markdown_() == table.markdown()


def test_save_round_trips_through_json(tmp_path, monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "book")
    table = ClaimTable("wang-li-li/memory-functions")
    row = table.add("Wang Thm 3.3", paper="rho ~ e^{-ct}", note="c = 0.51 ± 0.02", holds=True, **NC)
    assert row == ClaimRow(
        "Wang Thm 3.3",
        "rho ~ e^{-ct}",
        "c = 0.51 ± 0.02",
        "book",
        True,
        "reproduced",
        negative_control="a power-law memory: rejected",
        control_rejected=True,
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
        table.add("c", paper="p", note="o", holds=holds)
    assert table.rows == []


def test_numpy_bool_is_a_bool():
    import numpy as np

    table = ClaimTable("x/y")
    assert table.add("c", paper="p", note="o", holds=np.bool_(True), **NC).holds is True


def test_empty_table_raises():
    with pytest.raises(ValueError, match="has no rows"):
        ClaimTable("x/y").markdown()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"claim": ""}, ValueError, "claim must not be empty"),
        ({"paper": 3.0}, TypeError, "paper must be a str"),
        ({"note": 3}, TypeError, "note must be a str"),
    ],
)
def test_cells_must_be_text(kwargs, error, match):
    args = {"claim": "c", "paper": "p", "note": "o", "holds": True} | NC | kwargs
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
    row = ClaimTable("x/y").add("c", paper="p", note="o", holds=holds, status=status, **NC)
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
        table.add("c", paper="p", note="o", holds=holds, status=status, **NC)
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
    table.add("c", paper="p", note="o", holds=True, **NC)
    assert table.save() == tmp_path / "_build" / "claims" / "ci-seed1" / "part__chapter.json"
    monkeypatch.setenv("LRNN_RECORDS_DIR", str(tmp_path / "elsewhere"))
    assert records_dir() == tmp_path / "elsewhere" and records_dir().is_dir()


TRAINED = {"error": 1e-3, "baselines": {"ignores input": 0.05, "linear": 0.03}, "margin": 21.0}


def test_trained_row_records_error_baselines_and_margin(tmp_path):
    table = ClaimTable("x/y", autosave=False)
    row = table.add("c", paper="p", note="o", holds=True, **TRAINED, **NC)
    assert row.below_baselines == pytest.approx(30.0)
    assert trained_summary(row) == (
        "error 0.001; ignores input 0.05, linear 0.03: ×30 below the better baseline (needs ×21)"
    )
    assert "×30 below the better baseline" in table.markdown()
    record = json.loads(table.save(tmp_path).read_text())["rows"][0]
    assert record["error"] == 1e-3 and record["margin"] == 21.0
    assert record["baselines"] == {"ignores input": 0.05, "linear": 0.03}
    assert ClaimRow(**record) == row


def test_reproduced_needs_the_margin_below_both_baselines():
    """Error 1e-3 is 30x below the better baseline: 'reproduced' needs margin <= 30."""
    table = ClaimTable("x/y", autosave=False)
    with pytest.raises(ValueError, match="cannot be 'reproduced'"):
        table.add("c", paper="p", note="o", holds=True, **(TRAINED | {"margin": 31.0}), **NC)
    # below the linear baseline but not below the input-ignoring one
    bad = TRAINED | {"baselines": {"ignores input": 5e-4, "linear": 0.03}, "margin": 1.0}
    with pytest.raises(ValueError, match="cannot be 'reproduced'"):
        table.add("c", paper="p", note="o", holds=True, **bad, **NC)
    # the same numbers are fine as 'weaker' or 'not reproduced'
    assert table.add("c", paper="p", note="o", holds=True, status="weaker", **bad, **NC)
    assert table.add("c", paper="p", note="o", holds=False, **bad)
    assert [r.status for r in table.rows] == ["weaker", "not reproduced"]


@pytest.mark.parametrize(
    ("fields", "error", "match"),
    [
        ({"error": 1e-3}, ValueError, "error, baselines and margin together"),
        ({"baselines": {"ignores input": 1.0, "linear": 1.0}}, ValueError, "together"),
        (TRAINED | {"baselines": {"ignores input": 1.0}}, ValueError, "missing \\['linear'\\]"),
        (TRAINED | {"baselines": [1.0, 2.0]}, TypeError, "baselines must be a dict"),
        (TRAINED | {"error": float("nan")}, ValueError, "error must be finite"),
        (TRAINED | {"error": -1.0}, ValueError, "error must be >= 0"),
        (TRAINED | {"margin": 0.5}, ValueError, "margin must be >= 1"),
        (TRAINED | {"baselines": {"ignores input": 1.0, "linear": None}}, TypeError, "real"),
    ],
)
def test_trained_fields_are_checked(fields, error, match):
    table = ClaimTable("x/y", autosave=False)
    with pytest.raises(error, match=match):
        table.add("c", paper="p", note="o", holds=False, **fields)
    assert table.rows == []


@pytest.mark.parametrize("status", ["reproduced", "weaker"])
def test_a_holding_row_names_its_negative_control(status):
    table = ClaimTable("x/y", autosave=False)
    with pytest.raises(ValueError, match="names no control"):
        table.add("c", paper="p", note="o", holds=True, status=status)
    with pytest.raises(ValueError, match="control must not be empty"):
        table.add(
            "c", paper="p", note="o", holds=True, status=status, control=" ", control_rejected=True
        )
    assert table.rows == []


def test_add_saves_so_a_later_failing_assert_keeps_the_row(tmp_path, monkeypatch):
    monkeypatch.setenv("LRNN_RECORDS_DIR", str(tmp_path))
    table = ClaimTable("part/chapter")
    table.add("c", paper="p", note="o", holds=False)
    path = tmp_path / "part__chapter.json"
    assert [r["claim"] for r in json.loads(path.read_text())["rows"]] == ["c"]
    table.add("d", paper="p", note="o", holds=True, **NC)
    assert [r["claim"] for r in json.loads(path.read_text())["rows"]] == ["c", "d"]
    quiet = ClaimTable("part/quiet", autosave=False)
    quiet.add("e", paper="p", note="o", holds=False)
    assert not (tmp_path / "part__quiet.json").exists()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (7.8e9, "7.8e9"),
        (0.003124, "0.00312"),
        (42.54, "42.5"),
        (3.0, "3"),
        (2**24, "16777216"),
        (-1.5e-7, "-1.5e-7"),
        (True, "yes"),
        ([1.0, 2.5e-5], "[1, 2.5e-5]"),
        ("ring", "ring"),
    ],
)
def test_fmt_prints_three_significant_digits(value, text):
    assert fmt(value) == text


def test_fmt_takes_numpy_values():
    import numpy as np

    assert fmt(np.float32(0.25)) == "0.25"
    assert fmt(np.bool_(False)) == "no"
    assert fmt(np.arange(3)) == "[0, 1, 2]"
    assert fmt(list(range(10))) == "[0, 1, 2, 3, 4, 5, 6, 7, …]"


def test_one_record_gives_the_row_the_line_and_the_json(tmp_path, monkeypatch, capsys):
    import numpy as np

    monkeypatch.setenv("LRNN_SCALE", "ci")
    table = ClaimTable("orvieto/conditioning", autosave=False)
    row = table.add(
        "Orvieto Fig 2",
        paper="grows",
        measured={"median norm": np.float64(7.81e9), "draws": np.int64(16)},
        holds=np.bool_(True),
        control="real eigenvalues",
        control_rejected=np.bool_(True),
    )
    assert row.ours == "median norm 7.81e9; draws 16"
    assert row.negative_control == "real eigenvalues: rejected"
    assert row.control_rejected is True
    assert capsys.readouterr().out == (
        "Orvieto Fig 2: reproduced. median norm 7.81e9; draws 16; control: real eigenvalues: "
        "rejected\n"
    )
    record = json.loads(table.save(tmp_path).read_text())["rows"][0]
    assert record["measured"] == {"median norm": 7.81e9, "draws": 16}
    assert ClaimRow(**record) == row


def test_a_control_not_rejected_is_recorded_as_such():
    table = ClaimTable("x/y", autosave=False)
    row = table.add(
        "c", paper="p", measured={"x": 1.0}, holds=True, status="weaker", note="at N = 8 only",
        control="a linear map", control_rejected=False, show=False,
    )  # fmt: skip
    assert row.ours == "at N = 8 only; x 1"
    assert row.negative_control == "a linear map: NOT rejected"
    assert row.control_rejected is False


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"control": "c"}, "control_rejected must be a bool"),
        ({"control_rejected": True}, "needs the control"),
        ({"measured": {}}, "non-empty dict"),
    ],
)
def test_the_record_refuses_half_stated_controls(kwargs, match):
    args = {"paper": "p", "holds": False, "measured": {"x": 1.0}} | kwargs
    with pytest.raises((ValueError, TypeError), match=match):
        ClaimTable("x/y", autosave=False).add("c", **args)
