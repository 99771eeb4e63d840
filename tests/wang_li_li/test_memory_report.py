"""Evidence, printed lines and table rows of the memory-functions chapter (WLL Figs 5, 10, 11), on
hand-made numbers."""

import numpy as np

from lrnn_core.core.memory import DecayFit
from lrnn_core.wang_li_li.memory_experiments import LRUMemory, PairedMemory, RNNSample
from lrnn_core.wang_li_li.memory_report import (
    authors_text,
    exponents_text,
    fig5_row,
    fig6_row,
    fig10_evidence,
    fig10_row,
    fig10_text,
    fig11_row,
    fixed_point_text,
    lru_text,
    sample_text,
    word_memory_text,
)
from lrnn_core.wang_li_li.sentiment import FixedPoint

L = 20
FLAT = np.ones(L)  # a memory that never decays


def sample() -> RNNSample:
    """Four RNNs: two decaying contractions (gain 1), one non-decaying (gain 2), one unclassified
    (gain 2); tail ratios 1e-9, 1e-8, 0.5, 1e-4."""
    return RNNSample(
        gains=(1.0, 2.0, 1.0, 2.0),
        params=[],
        memory=[np.ones(L)] * 4,
        ratio=np.array([1e-9, 0.5, 1e-8, 1e-4]),
        radius=np.array([0.5, 1.5, 0.8, 1.2]),
        norm2=np.array([0.7, 2.0, 0.9, 1.3]),
    )


def fit(rate: float, r2: float = 1.0) -> DecayFit:
    return DecayFit(rate=rate, log_amplitude=0.0, r2=r2)


def test_exponents_and_sample_text():
    text = exponents_text({"exp": [1.0, 0.99999]}, {"exp": [(1.0, 6.0), (6.0, 12.0)]})
    assert text == "rho_exp: fitted exponent on windows [(1.0, 6.0), (6.0, 12.0)]: 1.0000, 1.0000"
    assert sample_text(sample()) == (
        "4 random tanh RNNs (m = 16, L = 20): 2 decaying, 1 non-decaying, 1 unclassified\n"
        "  gain 1: spectral radius 0.50-0.80, 2 decaying, 0 non-decaying\n"
        "  gain 2: spectral radius 1.20-1.50, 0 decaying, 1 non-decaying"
    )


def test_fig11_row_and_authors_text():
    row = fig11_row(sample(), True)
    assert row["holds"] and row.get("status") is None
    assert row["ours"].startswith("2 decaying and 1 non-decaying of 4 random tanh RNNs")
    assert row["negative_control"] == (
        "the 2 RNNs with spectral radius < 1 alone: 0 non-decaying, rejected by the same check"
    )
    # the authors' ratios move RNN 3 from unclassified to non-decaying
    assert authors_text(sample(), [1e-9, 0.5, 1e-8, 0.1]) == (
        "authors' definition: 2 decaying, 2 non-decaying, 0 unclassified; 1 of 4 verdicts "
        "differ from ours"
    )


def lru_rows() -> list[LRUMemory]:
    m = 0.5 ** np.arange(L)
    return [
        LRUMemory(3, "LRU", 0.69, fit(0.7, 0.999), fit(0.7), m, m),
        LRUMemory(3, "LRU + MLP", 0.5, fit(0.6), fit(0.5), m, 2 * m),
    ]


def test_lru_text():
    assert lru_text(lru_rows()[:1]) == (
        "seed 3, LRU             : -log|lambda_max| = 0.6900, fitted rate 0.7000 "
        "(R^2 0.999), impulse-probe rate 0.7000"
    )


def test_fig10_evidence_text_and_row():
    m = 0.1 ** np.arange(L)  # tail ratio 1e-18: decaying
    pairs = [PairedMemory(fit(0.6), fit(0.5), m, m), PairedMemory(fit(0.4), fit(0.5), m, FLAT)]
    impulse_ratio = np.array([1e-9, 1e-9, 1e-8, 1e-4])  # RNN 1 disagrees (0.5 vs 1e-9)
    ev = fig10_evidence(pairs, lru_rows(), sample(), impulse_ratio)
    np.testing.assert_allclose(ev.rate_ratio, [1.2, 0.8])
    np.testing.assert_allclose(ev.lru_ratio, [1.0, 1.2])
    assert ev.class_h == ["decaying", "decaying"] and ev.class_i == ["decaying", "non-decaying"]
    assert ev.agree.tolist() == [True, False, True, True]
    assert ev.contractions and ev.linear_gap == 0.0
    text = fig10_text(ev, ["non-decaying", "decaying"]).splitlines()
    assert text[0] == "tanh RNNs at gain 1: Heaviside / impulse rate ratio in [0.800, 1.200]"
    assert text[2].startswith("all gains: the two probes agree on the class of 3 of 4 RNNs")
    assert text[3] == "bilinear control: Heaviside non-decaying, impulse decaying"
    assert text[4] == "linear LRU: max |Heaviside - impulse| in units of that floor: 0"
    row = fig10_row(ev, sample().gains, True, ["non-decaying", "decaying"])
    assert row["status"] == "weaker"  # one RNN disagrees
    assert row["claim"] == "WLL Fig 10 (App. H)"
    assert row["ours"].endswith(
        "class agreement 3/4 over gains (1.0, 2.0) (1 disagree, at gains [2.0])"
    )
    assert fig10_row(ev, sample().gains, False, ["a", "b"])["status"] == "not reproduced"


def test_word_memory_fixed_point_text_and_fig5_row():
    memory = {(s, w): np.full(120, 1e-3 * s) for s in (1, 2) for w in ("good", "ha")}
    fits = {
        (1, "good"): fit(0.5, 0.9),
        (1, "ha"): fit(0.1),
        (2, "good"): fit(0.7),
        (2, "ha"): fit(0.2),
    }
    assert word_memory_text(memory, fits).splitlines() == [
        "good  : tail rate 0.500-0.700, R^2 >= 0.900, memory at n = 100: 1.5e-03 "
        "(median over seeds)",
        "ha    : tail rate 0.100-0.200, R^2 >= 1.000, memory at n = 100: 1.5e-03 "
        "(median over seeds)",
    ]
    z = np.zeros(2)
    fixed = {
        (1, "good"): FixedPoint(z, 1e-15, 0.5),
        (1, "ha"): FixedPoint(z, 1e-14, 0.9),
        (2, "good"): FixedPoint(z, 0.0, 0.6),
        (2, "ha"): FixedPoint(z, 0.0, 0.8),
    }
    assert fixed_point_text(fixed).splitlines()[1] == (
        f"ha    : residual <= 1.0e-14, spectral radius 0.8000-0.9000, "
        f"asymptotic rate >= {-np.log(0.9):.4f}"
    )
    control = FixedPoint(z, 3.0, 1.0)
    row = fig5_row(
        fixed, fits, ["good"], True, full=False, imdb="absent", control=control, polar_as_neutral=[]
    )
    assert row["status"] == "weaker" and row["holds"]
    assert "not IMDB: absent; 2 LSTMs" in row["ours"] and "<= 0.9000 < 1" in row["ours"]
    ours = row["ours"]
    assert "polar words 0.500-0.700, 'ha' 0.100-0.200; medians over seeds 'ha' 0.150, " in ours
    assert "slowest polar word 'good' 0.600; 'ha' slower than every polar word in 2 of 2" in ours
    slow_ha = fits | {(2, "ha"): fit(0.8)}  # seed 2: "ha" is faster than "good"
    assert (
        "in 1 of 2 seeds"
        in fig5_row(
            fixed,
            slow_ha,
            ["good"],
            False,
            full=False,
            imdb="absent",
            control=control,
            polar_as_neutral=[],
        )["ours"]
    )
    assert "residual 3, not an attracting fixed point" in row["negative_control"]
    assert row["negative_control"].endswith(
        "each of the 1 polar words in the role of 'ha': all rejected"
    )
    kept = fig5_row(
        fixed,
        fits,
        ["good"],
        True,
        full=False,
        imdb="absent",
        control=control,
        polar_as_neutral=["good"],
    )
    assert kept["negative_control"].endswith("in the role of 'ha': accepted for ['good']")
    assert (
        fig5_row(
            fixed, fits, ["good"], True, full=True, imdb=None, control=control, polar_as_neutral=[]
        )["status"]
        == "reproduced"
    )


def test_fig6_row_says_why_it_was_not_run():
    row = fig6_row("transformers is not installed", False)
    assert (row["claim"], row["holds"]) == ("WLL Fig 6 (App. B)", False)
    assert row["ours"] == (
        "not run: transformers is not installed; the synthetic LSTM substitute of Fig 5 "
        "has no BERT counterpart"
    )
    assert row["paper"].startswith("fine-tuned BERT on IMDB: memory decays slower")
