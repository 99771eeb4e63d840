"""The exercise check: it passes a right answer, catches wrong ones on numbers, says "not
attempted" for a stub, and holds a run to what ``LRNN_EXERCISES`` expects."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lrnn_core.bookkit import exercises as ex
from lrnn_core.bookkit.exercises import EXERCISES, check


def _reference(label):
    return EXERCISES[label].reference


def result(label, fn):
    """The line ``check`` prints for ``fn``, after the label."""
    return ex.outcome(EXERCISES[label], fn)


def _map(out, f):
    return tuple(f(np.asarray(o)) for o in out) if isinstance(out, tuple) else f(np.asarray(out))


@pytest.fixture(autouse=True)
def _no_expectation(monkeypatch):
    monkeypatch.delenv("LRNN_EXERCISES", raising=False)


@pytest.mark.parametrize("label", sorted(EXERCISES))
def test_every_exercise_catches_a_sign_error_and_a_small_error(label, capsys):
    """The reference passes its own check (a sanity check of the cases, not evidence); the
    negative controls: the same answer with its sign flipped, or 0.1 % too large, is wrong."""
    reference = _reference(label)
    check(label, reference)
    assert capsys.readouterr().out.startswith(f"{label}: passed")
    assert result(label, lambda *a: _map(reference(*a), np.negative)).startswith("wrong on")
    assert result(label, lambda *a: _map(reference(*a), lambda o: o * 1.001)).startswith("wrong on")


def _scan_loop(lam, u, shift=0):
    x, states = np.zeros(np.shape(u)[1:], complex), []
    for k in range(len(u)):
        x = lam * x + (u[k - shift] if k >= shift else 0)
        states.append(x)
    return np.array(states)


def test_the_scan_check_catches_an_off_by_one_and_names_the_input():
    assert result("ex-found-scan-loop", _scan_loop) == "passed (4 inputs)"
    wrong = result("ex-found-scan-loop", lambda lam, u: _scan_loop(lam, u, shift=1))
    assert wrong.startswith("wrong on random complex eigenvalues in the disk, L = 32, N = 4:")
    assert "Hint: x_0 = u_0" in wrong
    # the input is multiplied by lambda too: right on |lambda| = 1 ... but not in the disk
    scaled = result("ex-found-scan-loop", lambda lam, u: _scan_loop(lam, lam * np.asarray(u)))
    assert scaled.startswith("wrong on random complex")


def test_the_compose_check_catches_the_maps_in_the_wrong_order():
    def swapped(x, y):
        (a1, b1), (a2, b2) = x, y
        return a1 * a2, a1 * b2 + b1  # y first, then x

    assert result("ex-found-combine", swapped).startswith("wrong on random complex pairs")


def test_the_decode_check_catches_a_transposed_vandermonde_matrix():
    def decode(lam, x_k, k, transposed=False):
        V = np.asarray(lam)[:, None] ** np.arange(k - 1, -1, -1)  # N x k, rows lambda_i^(k-1..0)
        return np.linalg.pinv(V.T if transposed else V) @ x_k

    assert result("ex-mem-decode", decode) == "passed (4 inputs)"
    wrong = result("ex-mem-decode", lambda *a: decode(*a, transposed=True))
    assert wrong.startswith("wrong on N = 12 random complex eigenvalues, k = 6")


def test_a_stub_is_not_attempted_and_other_errors_are_reported(capsys):
    def stub(lam, u):
        raise NotImplementedError

    check("ex-found-scan-loop", stub)
    assert capsys.readouterr().out == "ex-found-scan-loop: not attempted\n"
    raised = result("ex-found-scan-loop", lambda lam, u: 1 / 0)
    assert raised.startswith("wrong on random complex") and "ZeroDivisionError" in raised
    shape = result("ex-found-scan-loop", lambda lam, u: _scan_loop(lam, u)[1:])
    assert "output shapes [(31, 4)], expected [(32, 4)]" in shape


def test_difference_on_numbers():
    assert ex.difference(np.ones(3), np.ones(3), 1e-5) is None
    assert "differs by 0.5" in ex.difference(np.array([1.0, 1.5]), np.ones(2), 1e-5)
    assert "differs by nan" in ex.difference(np.array([np.nan, 1.0]), np.ones(2), 1e-5)
    assert "output shapes" in ex.difference(np.ones(2), (np.ones(2), np.ones(2)), 1e-5)
    assert ex.difference((1.0, 2.0), (1.0, 2.0 + 1e-9), 1e-5) is None
    assert "differs by nan" in ex.difference((1.0, np.nan), (1.0, 2.0), 1e-5)  # nan in a tuple


@pytest.mark.parametrize(
    ("mode", "answer", "raises"),
    [
        ("solved", _scan_loop, None),
        ("solved", "stub", AssertionError),
        ("student", "stub", None),
        ("student", _scan_loop, AssertionError),
        ("wrong-mode", _scan_loop, ValueError),
    ],
)
def test_lrnn_exercises_holds_a_run_to_its_expectation(monkeypatch, mode, answer, raises):
    def stub(lam, u):
        raise NotImplementedError

    monkeypatch.setenv("LRNN_EXERCISES", mode)
    fn = stub if answer == "stub" else answer
    if raises is None:
        check("ex-found-scan-loop", fn)
    else:
        with pytest.raises(raises, match="LRNN_EXERCISES"):
            check("ex-found-scan-loop", fn)


def test_bad_calls_raise():
    with pytest.raises(ValueError, match="no exercise 'ex-nothing'"):
        check("ex-nothing", _scan_loop)
    with pytest.raises(TypeError, match="the function to check"):
        check("ex-found-scan-loop", np.zeros(3))


def test_the_teaching_table_lists_every_chapter_and_every_code_exercise():
    rows, run = ex.teaching_rows(Path(__file__))
    assert [r["chapter"] for r in rows][:2] == [
        "Linear recurrences and parallel scans",
        "Memorising by Vandermonde",
    ]
    assert len(rows) == 11 and all(r["reading (min)"] > 5 for r in rows)
    listed = "; ".join(r["code exercises (difficulty)"] for r in rows).split("; ")
    assert len(listed) == len(EXERCISES) and "$" not in "".join(listed)
    assert all(len(r["code exercises (difficulty)"].split("; ")) >= 2 for r in rows)
    if run:  # the stored Colab check ran every student notebook
        assert all(r["Colab run at ci (s)"] for r in rows), rows
