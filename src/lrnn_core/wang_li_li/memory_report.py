"""What the memory-functions chapter reports (Wang, Li & Li, ICLR 2024, Figs 5, 10, 11): the
evidence gathered for Fig. 10 (App. H), the lines printed under each experiment and the rows of
the paper-vs-ours table. The checks themselves are in :mod:`lrnn_core.wang_li_li.memory_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from jaxtyping import ArrayLike

from lrnn_core.core.memory import DecayFit
from lrnn_core.core.verdicts import Row, row_status
from lrnn_core.wang_li_li.memory_checks import (
    contractions_decay,
    linear_probe_gap,
    median_rates,
    memory_class,
    memory_classes,
    same_class,
    seeds_where_neutral_is_slower,
)
from lrnn_core.wang_li_li.memory_experiments import LRUMemory, PairedMemory, RNNSample
from lrnn_core.wang_li_li.sentiment import FixedPoint

__all__ = [
    "Fig10Evidence",
    "authors_text",
    "exponents_text",
    "fig5_row",
    "fig6_row",
    "fig10_evidence",
    "fig10_row",
    "fig10_text",
    "fig11_row",
    "fixed_point_text",
    "lru_text",
    "sample_text",
    "word_memory_text",
]


def exponents_text(
    local: Mapping[str, Sequence[float]], windows: Mapping[str, Sequence[tuple[float, float]]]
) -> str:
    """One line per target: the exponents ``beta`` fitted on its windows (``local_exponents``)."""
    return "\n".join(
        f"rho_{name}: fitted exponent on windows {windows[name]}: "
        + ", ".join(f"{r:.4f}" for r in rates)
        for name, rates in local.items()
    )


def sample_text(rnns: RNNSample) -> str:
    """The classes of the random tanh RNNs (WLL Fig. 11), overall and per gain, with the range of
    the spectral radius of ``W`` at each gain."""
    n, dec, per = len(rnns.memory), rnns.decaying, rnns.persistent
    lines = [
        f"{n} random tanh RNNs (m = 16, L = {len(rnns.memory[0])}): {dec.sum()} decaying, "
        f"{per.sum()} non-decaying, {n - dec.sum() - per.sum()} unclassified"
    ]
    for g in dict.fromkeys(rnns.gains):
        sel = np.array(rnns.gains) == g
        lines.append(
            f"  gain {g:g}: spectral radius {rnns.radius[sel].min():.2f}-"
            f"{rnns.radius[sel].max():.2f}, "
            f"{dec[sel].sum()} decaying, {per[sel].sum()} non-decaying"
        )
    return "\n".join(lines)


def fig11_row(rnns: RNNSample, holds: bool) -> Row:
    """The WLL Fig. 11 row: the class counts, and the control, the RNNs of spectral radius < 1."""
    dec, per, low = rnns.decaying, rnns.persistent, rnns.radius < 1
    return Row(
        claim="WLL Fig 11 (App. I.1)",
        paper="random RNNs: diverse memory patterns, some not decaying (qualitative)",
        ours=f"{dec.sum()} decaying and {per.sum()} non-decaying of {len(rnns.memory)} "
        "random tanh RNNs (m = 16); every non-decaying one has spectral radius > 1",
        holds=holds,
        negative_control=f"the {low.sum()} RNNs with spectral radius < 1 alone: "
        f"{per[low].sum()} non-decaying, rejected by the same check",
    )


def authors_text(rnns: RNNSample, ratio_authors: ArrayLike) -> str:
    """The classes under the authors' definition (``authors_tail_ratios``) and how many verdicts
    differ from ours."""
    n = len(rnns.memory)
    dec_a, per_a = memory_classes(ratio_authors)
    changed = (rnns.decaying != dec_a) | (rnns.persistent != per_a)
    return (
        f"authors' definition: {dec_a.sum()} decaying, {per_a.sum()} "
        f"non-decaying, {n - dec_a.sum() - per_a.sum()} unclassified; "
        f"{changed.sum()} of {n} verdicts differ from ours"
    )


def lru_text(rows: Sequence[LRUMemory]) -> str:
    """One line per LRU model: its slowest rate ``-log |lambda_max|`` and the fitted rates of its
    Heaviside and impulse memories."""
    return "\n".join(
        f"seed {row.seed}, {row.name:16s}: -log|lambda_max| = {row.slow:.4f}, "
        f"fitted rate {row.fit_h.rate:.4f} (R^2 {row.fit_h.r2:.3f}), "
        f"impulse-probe rate {row.fit_i.rate:.4f}"
        for row in rows
    )


class Fig10Evidence(NamedTuple):
    """What WLL Fig. 10 (App. H) is judged on: Heaviside / impulse rate ratios of the gain-1 RNNs
    and of the LRU family, the two probes' classes of the gain-1 RNNs, where the two classes of
    every RNN agree, whether every contraction decays under both, and the linear LRU's gap
    (:func:`~lrnn_core.wang_li_li.memory_checks.linear_probe_gap`)."""

    rate_ratio: np.ndarray
    lru_ratio: np.ndarray
    class_h: list[str]
    class_i: list[str]
    agree: np.ndarray
    contractions: bool
    linear_gap: float


def fig10_evidence(
    pairs: Sequence[PairedMemory],
    rows: Sequence[LRUMemory],
    rnns: RNNSample,
    impulse_ratio: ArrayLike,
) -> Fig10Evidence:
    """:class:`Fig10Evidence` from the paired memories of the gain-1 RNNs, the LRU family and the
    impulse tail ratio of every RNN of the sample (``same_class``, ``contractions_decay``)."""
    agree = same_class(rnns.ratio, impulse_ratio)
    return Fig10Evidence(
        rate_ratio=np.array([p.fit_h.rate / p.fit_i.rate for p in pairs]),
        lru_ratio=np.array([r.fit_h.rate / r.fit_i.rate for r in rows]),
        class_h=[memory_class(p.m_h) for p in pairs],
        class_i=[memory_class(p.m_i) for p in pairs],
        agree=agree,
        contractions=contractions_decay(rnns.decaying, agree, rnns.norm2),
        linear_gap=linear_probe_gap([(r.m_h, r.m_i) for r in rows if r.name == "LRU"]),
    )


def fig10_text(ev: Fig10Evidence, control: Sequence[str]) -> str:
    """The rate ratios, the class agreement, the bilinear control's classes and the linear gap."""
    return (
        "tanh RNNs at gain 1: Heaviside / impulse rate ratio in "
        f"[{ev.rate_ratio.min():.3f}, {ev.rate_ratio.max():.3f}]\n"
        "LRU family:          Heaviside / impulse rate ratio in "
        f"[{ev.lru_ratio.min():.3f}, {ev.lru_ratio.max():.3f}]\n"
        f"all gains: the two probes agree on the class of {ev.agree.sum()} of "
        f"{len(ev.agree)} RNNs; contractions (||W||_2 < 1) decaying under both probes: "
        f"{ev.contractions}\n"
        f"bilinear control: Heaviside {control[0]}, impulse {control[1]}\n"
        f"linear LRU: max |Heaviside - impulse| in units of that floor: {ev.linear_gap:.2g}"
    )


def fig10_row(
    ev: Fig10Evidence, gains: Sequence[float], holds: bool, control: Sequence[str]
) -> Row:
    """The WLL Fig. 10 row: *reproduced* where the probes agree on every RNN, *weaker* otherwise
    (:func:`~lrnn_core.core.verdicts.row_status`); ``gains`` of the RNNs, one per RNN."""
    agree, r, lr = ev.agree, ev.rate_ratio, ev.lru_ratio
    disagree = sorted({gains[i] for i in np.flatnonzero(~agree)})
    return Row(
        claim="WLL Fig 10 (App. H)",
        paper="Heaviside and impulse memories qualitatively equivalent",
        ours=f"same class; Heaviside/impulse rate ratio {r.min():.2f}-{r.max():.2f} "
        f"(tanh RNNs, gain 1), {lr.min():.3f}-{lr.max():.3f} (LRU family); class "
        f"agreement {agree.sum()}/{len(agree)} over gains {tuple(dict.fromkeys(gains))} "
        f"({(~agree).sum()} disagree, at gains {disagree})",
        holds=holds,
        status=row_status(holds, full=bool(agree.all())),
        negative_control=f"y_k = u_k Σ_(j≤k) u_j: {list(control)}, rejected by the same check",
    )


def word_memory_text(
    memory: Mapping[tuple[int, str], np.ndarray], fits: Mapping[tuple[int, str], DecayFit]
) -> str:
    """Per word: the range over seeds of the fitted tail rate, the smallest ``R^2`` and the median
    memory at ``n = 100`` (WLL Fig. 5 substitute)."""
    seeds = list(dict.fromkeys(s for s, _ in fits))
    words = list(dict.fromkeys(w for _, w in fits))
    lines = []
    for word in words:
        f = [fits[s, word] for s in seeds]
        at_100 = np.median([memory[s, word][99] for s in seeds])
        lines.append(
            f"{word:6s}: tail rate {min(x.rate for x in f):.3f}-"
            f"{max(x.rate for x in f):.3f}, R^2 >= {min(x.r2 for x in f):.3f}, "
            f"memory at n = 100: {at_100:.1e} (median over seeds)"
        )
    return "\n".join(lines)


def fixed_point_text(fixed: Mapping[tuple[int, str], FixedPoint]) -> str:
    """Per word: the largest residual, the range of spectral radii and the smallest asymptotic
    rate of the repeated word's fixed points over the seeds."""
    seeds = list(dict.fromkeys(s for s, _ in fixed))
    words = list(dict.fromkeys(w for _, w in fixed))
    lines = []
    for word in words:
        fps = [fixed[s, word] for s in seeds]
        lines.append(
            f"{word:6s}: residual <= {max(f.residual for f in fps):.1e}, "
            f"spectral radius {min(f.radius for f in fps):.4f}-"
            f"{max(f.radius for f in fps):.4f}, "
            f"asymptotic rate >= {min(f.rate for f in fps):.4f}"
        )
    return "\n".join(lines)


def fig5_row(
    fixed: Mapping[tuple[int, str], FixedPoint],
    fits: Mapping[tuple[int, str], DecayFit],
    polar: Sequence[str],
    holds: bool,
    *,
    full: bool,
    imdb: str | None,
    control: FixedPoint,
    polar_as_neutral: Sequence[str],
) -> Row:
    """The WLL Fig. 5 row (a substitute: ``full`` only on IMDB; ``imdb`` why it is not loaded):
    the largest spectral radius, the window rates of the polar words and of "ha", their medians
    over seeds (:func:`neutral_forgets_slower`) and the seeds in which "ha" is slower word by
    word; the controls: the integrating LSTM's fixed point, and ``polar_as_neutral``, the polar
    words the ordering check accepted in the role of "ha" (:func:`slowest_words`)."""
    seeds = list(dict.fromkeys(s for s, _ in fits))
    rates = {key: f.rate for key, f in fits.items()}
    polar_rates = [rates[s, w] for s in seeds for w in polar]
    ha_rates = [rates[s, "ha"] for s in seeds]
    median = median_rates(rates, seeds, (*polar, "ha"))
    slowest = min(polar, key=median.get)
    ordered = len(seeds_where_neutral_is_slower(rates, seeds, polar))
    return Row(
        claim="WLL Fig 5 (App. B)",
        paper="IMDB LSTM: 'good'/'bad' decay exponentially; 'ha' complicated, not fast",
        ours=f"SUBSTITUTE (synthetic reviews, not IMDB: {imdb}; {len(seeds)} LSTMs): "
        f"every word drives the state to an attracting fixed point (spectral radius "
        f"<= {max(f.radius for f in fixed.values()):.4f} < 1: exponential memory); "
        f"window rate of polar words {min(polar_rates):.3f}-{max(polar_rates):.3f}, "
        f"'ha' {min(ha_rates):.3f}-{max(ha_rates):.3f}; medians over seeds 'ha' "
        f"{median['ha']:.3f}, slowest polar word '{slowest}' {median[slowest]:.3f}; 'ha' "
        f"slower than every polar word in {ordered} of {len(seeds)} seeds",
        holds=holds,
        status=row_status(holds, full=full),
        negative_control="the LSTM with input and forget gates held open (an integrator): "
        f"residual {control.residual:.2g}, not an attracting fixed point, rejected; the ordering "
        f"check with each of the {len(polar)} polar words in the role of 'ha': "
        + (f"accepted for {list(polar_as_neutral)}" if polar_as_neutral else "all rejected"),
    )


def fig6_row(missing: str | None, holds: bool) -> Row:
    """The Fig. 6 row (App. B), not run: ``missing`` says why (the fine-tuned BERT is absent)."""
    return Row(
        claim="WLL Fig 6 (App. B)",
        paper="fine-tuned BERT on IMDB: memory decays slower and fluctuates more than LSTM",
        ours=f"not run: {missing}; the synthetic LSTM substitute of Fig 5 has no BERT counterpart",
        holds=holds,
    )
