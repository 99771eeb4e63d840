"""The LRNN_SCALE setting."""

import pytest

from lrnn_core.bookkit.scale import DEFAULT_SCALE, SCALES, by_scale, current_scale


def test_default_is_book(monkeypatch):
    monkeypatch.delenv("LRNN_SCALE", raising=False)
    assert DEFAULT_SCALE == "book"
    assert current_scale() == "book"
    assert by_scale(ci=1, book=2, paper=3) == 2


@pytest.mark.parametrize(
    ("value", "expected"),
    [("ci", "ci"), ("book", "book"), ("paper", "paper"), (" CI ", "ci"), ("Paper\n", "paper")],
)
def test_parsing_is_case_and_space_insensitive(monkeypatch, value, expected):
    monkeypatch.setenv("LRNN_SCALE", value)
    assert current_scale() == expected


@pytest.mark.parametrize(("value", "picked"), [("ci", 10), ("book", 200), ("paper", 5000)])
def test_by_scale_picks_the_value_of_the_current_scale(monkeypatch, value, picked):
    monkeypatch.setenv("LRNN_SCALE", value)
    assert by_scale(ci=10, book=200, paper=5000) == picked


@pytest.mark.parametrize("value", ["gpu", "", "c i", "books"])
def test_bad_value_raises(monkeypatch, value):
    monkeypatch.setenv("LRNN_SCALE", value)
    with pytest.raises(ValueError, match=r"LRNN_SCALE must be one of \('ci', 'book', 'paper'\)"):
        current_scale()
    with pytest.raises(ValueError, match="LRNN_SCALE"):
        by_scale(ci=1, book=2, paper=3)


def test_by_scale_needs_ci_and_book_and_paper_defaults_to_book(monkeypatch):
    with pytest.raises(TypeError):
        by_scale(ci=1)  # type: ignore[call-arg]
    monkeypatch.setenv("LRNN_SCALE", "paper")
    assert by_scale(ci=1, book=2) == 2
    assert by_scale(ci=1, book=2, paper=3) == 3
    monkeypatch.setenv("LRNN_SCALE", "ci")
    assert by_scale(ci=1, book=2) == 1
    assert SCALES == ("ci", "book", "paper")
