"""The verdicts of a claim row on numbers: the factor below the better baseline, the margin rule
at and around its boundary, and the status from what holds; bad input names itself."""

import inspect
import math

import numpy as np
import pytest

from lrnn_core.bookkit.tables import ClaimTable
from lrnn_core.core.verdicts import Row, beats, row_status, times_below

BASE = {"ignores input": 0.1, "linear": 0.02}


def test_times_below_is_the_better_baseline_over_the_error():
    assert times_below(0.005, BASE) == pytest.approx(4.0)
    assert times_below(0.04, BASE) == pytest.approx(0.5)  # above the better baseline
    assert times_below(np.float32(0.01), {"linear": 0.03}) == pytest.approx(3.0)
    assert times_below(0.0, BASE) == math.inf


def test_beats_holds_at_exactly_the_margin_and_not_just_above():
    # 0.002 * 10 = 0.02 = min(BASE): on the boundary the rule holds
    assert beats(0.002, BASE, 10.0) and not beats(0.0021, BASE, 10.0)
    assert beats(0.02, BASE, 1.0) and not beats(0.03, BASE, 1.0)
    assert beats(0.25, {"linear": 1.0}, 4.0) and not beats(0.25, {"linear": 1.0}, 4.000001)
    assert beats(0.0, BASE, 1e6)  # an exact fit beats any margin
    # the rule and the factor agree: beats iff times_below >= margin (away from rounding)
    for error in (0.001, 0.0019, 0.0021, 0.01):
        assert beats(error, BASE, 10.0) == (times_below(error, BASE) >= 10.0)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: beats(math.nan, BASE, 2.0), ValueError, "error must be finite"),
        (lambda: beats(math.inf, BASE, 2.0), ValueError, "error must be finite"),
        (lambda: times_below(math.nan, BASE), ValueError, "error must be finite"),
        (lambda: beats(-0.1, BASE, 2.0), ValueError, "error must be >= 0"),
        (lambda: beats(0.1, {}, 2.0), ValueError, "baselines must be a non-empty mapping"),
        (lambda: times_below(0.1, {}), ValueError, "baselines must be a non-empty mapping"),
        (lambda: beats(0.1, [0.2], 2.0), ValueError, "baselines must be a non-empty mapping"),
        (lambda: beats(0.1, {"linear": math.nan}, 1.0), ValueError, r"baselines\['linear'\]"),
        (lambda: beats(0.1, BASE, 0.5), ValueError, "margin must be >= 1"),
        (lambda: beats(0.1, BASE, -1.0), ValueError, "margin must be >= 1"),
        (lambda: beats("0.1", BASE, 2.0), TypeError, "error must be a real number"),
    ],
)
def test_bad_input_raises_and_names_it(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_row_status_from_what_holds():
    assert row_status(True, True) == "reproduced"
    assert row_status(True, False) == "weaker"
    assert row_status(False, True) == "not reproduced"
    assert row_status(False, False) == "not reproduced"
    assert row_status(np.bool_(True), full=np.bool_(False)) == "weaker"
    with pytest.raises(TypeError, match="holds must be a bool"):
        row_status(1, True)
    with pytest.raises(TypeError, match="full must be a bool"):
        row_status(True, "yes")


def test_row_keys_are_the_keywords_of_claim_table_add():
    params = inspect.signature(ClaimTable.add).parameters
    names = {n for n, p in params.items() if n != "self"}
    required = {n for n in names if params[n].default is inspect.Parameter.empty}
    assert set(Row.__annotations__) <= names
    assert required == {"claim", "paper", "holds"} <= Row.__required_keys__
