"""The claim checks of the stable-reparameterisation chapter (Wang, Li & Li, ICLR 2024, Figs 4,
7-8 and the explorer), on the ``E_m(beta)`` sets of
:mod:`lrnn_core.wang_li_li.reparam_experiments`. Every check is the spread test of
:mod:`lrnn_core.wang_li_li.reparam_perturbation` (``min(A) > max(B)`` over independent sets of
draws, chance ``1 / C(n_A + n_B, n_A)`` if A and B did not differ), at the betas where theory says
direct and stable maps can differ: past ``beta > |lam_min|`` (:func:`crossing_beta`), where a
direct eigenvalue can cross 0 and a stable one never can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.wang_li_li.ctrnn import CTRNN, STABLE_PARAMETERISATIONS
from lrnn_core.wang_li_li.perturbation import bias_response_error, width_growth
from lrnn_core.wang_li_li.reparam_perturbation import (
    crossed_zero,
    crossing_beta,
    direct_above,
    fits_alike,
    separated,
)

__all__ = [
    "BiasCheck",
    "Fig4Check",
    "Fig7Check",
    "Fig8Check",
    "TailCheck",
    "WindowCheck",
    "bias_check",
    "fig4_check",
    "fig7_check",
    "fig8_check",
    "tail_check",
    "window_check",
]

#: (activation, parameterisation) -> E_m(beta) sets, (sets, Ns, betas).
ErrorSets = Mapping[tuple[str, str], np.ndarray]
#: (activation, parameterisation) -> the models of each width.
Models = Mapping[tuple[str, str], Sequence[CTRNN]]
#: the hardtanh and tanh runs of WLL Fig. 8 and their stable maps.
SMOOTH, STABLE = ("hardtanh", "tanh"), ("exp", "softplus")


class Fig4Check(NamedTuple):
    """WLL Fig. 4 past the crossing ``beta > Ns[-1]^-1.5`` (``past``, over the betas > 0):
    ``growth`` (sets, betas > 0) of each map (:func:`width_growth` of each set); whether direct is
    above every stable map beyond the spread, in the growth and the widest model's error
    (:func:`direct_above`), and the same check of direct against independent draws of direct
    (``control_*``, the negative control); ``widest_ratio`` lowest direct / highest stable widest
    error."""

    growth: dict[str, np.ndarray]
    past: np.ndarray
    growth_above: np.ndarray
    widest_above: np.ndarray
    holds: bool
    control_growth: np.ndarray
    control_widest: np.ndarray
    control: bool
    widest_ratio: np.ndarray


def fig4_check(
    error_sets: Mapping[str, Float[ArrayLike, "sets Ns betas"]],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
) -> Fig4Check:
    """The Fig. 4 check on each map's ``E_m(beta)`` sets (``betas[0] = 0`` is left out); the
    control splits the direct sets in two halves."""
    sets = {p: np.asarray(E)[:, :, 1:] for p, E in error_sets.items()}
    growth = {p: np.array([width_growth(E) for E in S]) for p, S in sets.items()}
    past = np.asarray(betas)[1:] > Ns[-1] ** -1.5
    stable = np.stack([sets[p] for p in STABLE_PARAMETERISATIONS])
    g, w = direct_above(sets["direct"], stable)
    half = len(sets["direct"]) // 2
    gc, wc = direct_above(sets["direct"][:half], sets["direct"][half:])
    ratio = sets["direct"][:, -1].min(axis=0) / stable[:, :, -1].max(axis=(0, 1))
    return Fig4Check(
        growth, past, g, w, bool(np.all(g[past]) and np.all(w[past])),
        gc, wc, bool(np.all(gc[past]) and np.all(wc[past])), ratio,
    )  # fmt: skip


class WindowCheck(NamedTuple):
    """WLL Figs 7-8: the crossing window ``lo < beta <= hi`` (the slowest rates of the widest and
    the narrowest direct model), the index ``j_below`` of the largest beta below it; per
    activation, whether direct is above its stable maps beyond the spread in the window
    (``above``, from ``growth_above`` and ``widest_above``); per run, whether the widest model is
    above the narrowest at ``j_below`` (``grows``, :func:`separated`)."""

    lo: float
    hi: float
    window: np.ndarray
    j_below: int
    above: dict[str, bool]
    growth_above: dict[str, np.ndarray]
    widest_above: dict[str, np.ndarray]
    grows: dict[tuple[str, str], bool]


def window_check(
    error_sets: ErrorSets,
    direct_models: Sequence[CTRNN],
    betas: Float[ArrayLike, " n_betas"],
    runs: Mapping[str, Sequence[str]],
) -> WindowCheck:
    """The window check of every activation of ``runs`` (its maps, direct first), the window from
    the direct models of each width (narrowest first)."""
    betas = np.asarray(betas)
    lo = crossing_beta(direct_models[-1], "direct")
    hi = crossing_beta(direct_models[0], "direct")
    window = (betas > lo) & (betas <= hi)
    j_below = int(np.flatnonzero(betas <= lo).max())  # largest beta below it
    above, g_above, w_above, grows = {}, {}, {}, {}
    for a, ps in runs.items():
        stable = np.stack([error_sets[a, p] for p in ps[1:]])
        g_above[a], w_above[a] = direct_above(error_sets[a, "direct"], stable)
        above[a] = bool(np.all(g_above[a][window]) and np.all(w_above[a][window]))
        for p in ps:
            E = error_sets[a, p][:, :, j_below]  # (sets, Ns)
            grows[a, p] = separated(E[:, 0], E[:, -1])
    return WindowCheck(lo, hi, window, j_below, above, g_above, w_above, grows)


class BiasCheck(NamedTuple):
    """The bias-only prediction (:func:`bias_response_error` of each width) and its growth in
    the width, beside the measured median growth of the stable hardtanh/tanh models (all
    parameters perturbed, (betas > 0,) each) and their growth with ``b`` fixed."""

    prediction: np.ndarray
    growth: float
    stable: dict[tuple[str, str], np.ndarray]
    frozen: dict[tuple[str, str], np.ndarray]


def bias_check(
    direct_models: Sequence[CTRNN],
    error_sets: ErrorSets,
    frozen: Mapping[tuple[str, str], Float[ArrayLike, "Ns betas"]],
    *,
    L: int,
    dt: float,
    seed: int,
) -> BiasCheck:
    """:class:`BiasCheck` from the direct tanh models (raw = the eigenvalues), each width's
    noise from ``np.random.default_rng(seed)``."""
    pred = np.array(
        [
            bias_response_error(q.raw, q.C[0], L, dt=dt, rng=np.random.default_rng(seed))
            for q in direct_models
        ]
    )
    stable = {
        (a, p): np.median([width_growth(E[:, 1:]) for E in error_sets[a, p]], axis=0)
        for a in SMOOTH
        for p in STABLE
    }
    frozen_g = {k: width_growth(np.asarray(frozen[k])[:, 1:]) for k in stable}
    return BiasCheck(pred, float(pred.max() / pred[0]), stable, frozen_g)


class Fig7Check(NamedTuple):
    """WLL Fig. 7: the ReLU models' ``E_m(0)`` (maps, Ns), whether they fit at least as well
    as the narrowest linear (tanh, direct) fit, whether no stable model of the widest width
    crosses 0 at any beta, and ``holds`` = fit and direct above stable in the window."""

    relu_e0: np.ndarray
    relu_fits: bool
    never_cross: bool
    holds: bool


def fig7_check(
    first_sets: ErrorSets,
    models: Models,
    betas: Float[ArrayLike, " n_betas"],
    relu_above: bool,
    *,
    key: jax.Array,
    draws: int,
    perturbed: str,
) -> Fig7Check:
    """The Fig. 7 check on the first sets ``E_m(beta)`` (Ns, betas) of every run."""
    relu_e0 = np.array([E[:, 0] for (a, _), E in first_sets.items() if a == "relu"])
    relu_fits = bool(np.all(relu_e0 <= first_sets["tanh", "direct"][0, 0]))
    never_cross = all(
        not crossed_zero(
            ms[-1], betas, key=key, draws=draws, parameterisation=p, perturbed=perturbed
        ).any()
        for (_, p), ms in models.items()
        if p != "direct"
    )
    return Fig7Check(relu_e0, relu_fits, never_cross, relu_fits and relu_above)


class Fig8Check(NamedTuple):
    """WLL Fig. 8 below the crossing window: no stable hardtanh/tanh model grows in the width
    beyond the spread (``stable_bounded``), every direct one does (``direct_grows``, the
    negative control), and the stable models fit as the direct ones (``same_fit``, ``E_m(0)``
    within 1 %)."""

    stable_bounded: bool
    direct_grows: bool
    holds: bool
    same_fit: bool


def fig8_check(grows: Mapping[tuple[str, str], bool], first_sets: ErrorSets) -> Fig8Check:
    """The Fig. 8 check from :class:`WindowCheck`'s ``grows`` and the first sets of draws."""
    stable_bounded = not any(grows[a, p] for a in SMOOTH for p in STABLE)
    direct_grows = all(grows[a, "direct"] for a in SMOOTH)
    same_fit = all(
        fits_alike(
            first_sets[a, "direct"][:, 0], [first_sets[a, p][:, 0] for p in STABLE], rtol=0.01
        )
        for a in SMOOTH
    )
    return Fig8Check(stable_bounded, direct_grows, stable_bounded and direct_grows, same_fit)


class TailCheck(NamedTuple):
    """The memories over the last ``tail`` steps: the largest of each perturbed direct draw, the
    largest of every perturbed stable draw, and which direct draws crossed 0."""

    direct: np.ndarray
    stable: float
    crossed: np.ndarray


def tail_check(
    memories: Mapping[tuple[str, str], np.ndarray],
    crossed: Mapping[tuple[str, str], np.ndarray],
    activation: str,
    *,
    tail: int = 10,
) -> TailCheck:
    """:class:`TailCheck` of ``activation`` (row 0 of each memory is the unperturbed model)."""
    last = slice(-tail, None)
    direct = memories[activation, "direct"][1:, last].max(axis=1)
    stable = max(memories[activation, p][1:, last].max() for p in STABLE_PARAMETERISATIONS)
    return TailCheck(direct, float(stable), np.asarray(crossed[activation, "direct"]))
