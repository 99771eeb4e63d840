"""Stable reparameterisation (Wang, Li & Li, ICLR 2024, Sec. 3.4, eq. 18 reconstructed, App. E,
Figs 4, 7-8 and the LRU check): the eigenvalues of the maps ``lam = f(raw)``, the perturbation
errors ``E_m(beta)`` (Def. 3.4, eq. 11) of the least-squares linear and nonlinear RNNs in sets of
independent draws, the authors' perturbation protocol, the spread test that compares two families
of errors, the perturbed memories of the explorer and the perturbed LRU moduli. The rules that
turn these numbers into the chapter's claims are written on its page.

**The authors' protocol** (github radarFudan/Curse-of-memory, ``src/perturb.py`` run by their
scripts with ``perturb_range=21``, ``perturb_repeats=3``, ``perturbation_interval=0.5``):

    betas = {0} U {1e-3 * 2^(i / 2) : i = 0..20}        (1e-3 ... 1.024, :func:`authors_betas`)
    E_m(beta_j) = max_{i <= j} max_{r < repeats} loss(theta + beta_i n_r / max|n_r|),

each repeat ``r`` re-seeded identically at every beta (one noise direction per repeat), and the
maximum carried over from the smaller betas (the *running max*).
:func:`lrnn_core.wang_li_li.perturbation.perturbed_losses` gives the loss of every draw (a chunk of
draws at a time, so that wide grids fit in memory), :func:`sets_of_draws` groups independent
draws into sets of ``repeats`` and applies the authors' maxima to each set, so
that the spread of ``E_m(beta)`` from one set of draws to the next can be measured.

**The spread test** (:func:`separated`): a family A is *above* a family B beyond the spread of
their independent sets of draws when ``min(A) > max(B)``. If the two were the same distribution
(exchangeable), each of the ``C(n_A + n_B, n_A)`` placements of the A values among the pooled
values would be equally likely and only one puts all of A above all of B:

    P(separated | no difference) = 1 / C(n_A + n_B, n_A)     (:func:`separation_p_value`),

1.1e-5 for 10 sets against 10. No factor is chosen: the bound is the spread itself.

**Where direct and stable can differ** (:func:`crossing_beta`): a sup-norm-``beta`` perturbation
moves a raw parameter by at most ``beta``. In the direct coordinates the eigenvalue *is* the raw
parameter, so the slowest eigenvalue ``lam_min`` of a model can cross 0 only when
``beta > |lam_min|``; a stable map ``f(m) < 0`` never crosses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.memory import heaviside_memory
from lrnn_core.core.targets import linear_functional, poly_memory
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_finite,
    check_flag,
    positive_int,
    positive_number,
)
from lrnn_core.wang_li_li.ctrnn import (
    CTRNN,
    PARAMETERISATIONS,
    check_ctrnn,
    ctrnn_outputs,
    raw_from_weight,
    recurrent_weight,
)
from lrnn_core.wang_li_li.fitting import fitted_rnn, geometric_rates, train_ctrnn
from lrnn_core.wang_li_li.perturbation import (
    check_betas,
    linear_perturbation_errors,
    lru_perturbed_modulus,
    moved_by,
    output_loss_of,
    perturb,
    perturbation_noise,
    perturbed_losses,
    width_growth,
)


def authors_betas(perturb_range: int = 21, interval: float = 0.5) -> np.ndarray:
    """``{0} U {1e-3 * 2^(i * interval) : i < perturb_range}``, sorted (the authors'
    ``src/perturb.py``; their scripts: 21 values, interval 0.5, i.e. 1e-3 ... 1.024)."""
    perturb_range = positive_int("perturb_range", perturb_range)
    interval = positive_number("interval", interval)
    return np.concatenate([[0.0], 1e-3 * 2.0 ** (np.arange(perturb_range) * interval)])


def sets_of_draws(
    losses: Float[ArrayLike, "... n_betas draws"], *, repeats: int = 3, running_max: bool = True
) -> np.ndarray:
    """``E_m(beta)`` of each set of ``repeats`` consecutive draws, shape ``(..., sets, n_betas)``
    with ``sets = draws // repeats`` (leftover draws are dropped): the maximum over the set's
    draws, then (``running_max``) over all smaller betas (the authors' ``src/perturb.py``; betas
    ascending along the axis)."""
    losses = np.asarray(losses, np.float64)
    repeats = positive_int("repeats", repeats)
    running_max = check_flag("running_max", running_max)
    if losses.ndim < 2 or losses.shape[-1] < repeats:
        raise ValueError(
            "losses must have shape (..., n_betas, draws) with draws >= repeats, got "
            f"{losses.shape} and repeats={repeats}"
        )
    if np.any(np.isnan(losses)):
        raise ValueError("losses must not hold NaN (a diverged model is inf)")
    sets = losses.shape[-1] // repeats
    grouped = losses[..., : sets * repeats].reshape(*losses.shape[:-1], sets, repeats)
    worst = np.moveaxis(grouped.max(axis=-1), -1, -2)  # (..., sets, n_betas)
    return np.maximum.accumulate(worst, axis=-1) if running_max else worst


def separated(above: ArrayLike, below: ArrayLike) -> bool:
    """True when every value of ``above`` exceeds every value of ``below`` (``min(above) >
    max(below)``): ``above`` is above ``below`` beyond the spread of their independent draws
    (module docstring). The test and the argument order of
    :func:`lrnn_core.core.verdicts.separated`, except that ``inf`` is allowed here (a diverged
    perturbed model); NaN is not."""
    above = np.asarray(above, np.float64).ravel()
    below = np.asarray(below, np.float64).ravel()
    if above.size == 0 or below.size == 0:
        raise ValueError("above and below must each hold at least one value")
    if np.any(np.isnan(above)) or np.any(np.isnan(below)):
        raise ValueError("above and below must not hold NaN")
    return bool(above.min() > below.max())


def separation_p_value(n_low: int, n_high: int) -> float:
    """``1 / C(n_low + n_high, n_low)``: the chance that ``n_high`` exchangeable values all exceed
    ``n_low`` others (module docstring)."""
    n_low, n_high = positive_int("n_low", n_low), positive_int("n_high", n_high)
    return 1.0 / math.comb(n_low + n_high, n_low)


def unstable(params: CTRNN, parameterisation: str) -> bool:
    """Whether an eigenvalue of the CTRNN ``params`` (its raw parameters mapped by
    ``parameterisation``) is ``>= 0``: the perturbed map has left the stable set."""
    return float(recurrent_weight(params.raw, parameterisation).max()) >= 0


def crossing_beta(params: CTRNN, parameterisation: str) -> float:
    """The smallest beta at which a sup-norm perturbation of the raw parameters can push an
    eigenvalue of ``params`` (a CTRNN) across 0: ``|lam_min|`` in the direct coordinates, ``inf``
    for a stable map (module docstring)."""
    if unstable(params, parameterisation):
        raise ValueError("params must be stable (every eigenvalue < 0)")
    lam = np.asarray(recurrent_weight(params.raw, parameterisation), np.float64)
    return float(np.abs(lam).min()) if parameterisation == "direct" else math.inf


def crossed_zero(
    params: CTRNN,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int,
    parameterisation: str,
    perturbed: str,
) -> np.ndarray:
    """Whether draw ``i`` at each beta (the draws of
    :func:`lrnn_core.wang_li_li.perturbation.perturbed_losses`, same key) pushes an eigenvalue to
    ``>= 0``, shape ``(len(betas), draws)``."""
    betas = check_betas(betas, increasing=True)
    draws = positive_int("draws", draws)
    crossed = np.zeros((len(betas), draws), bool)
    for i in range(draws):
        noise = perturbation_noise(params, jax.random.fold_in(key, i), perturbed=perturbed)
        for j, b in enumerate(betas):
            crossed[j, i] = unstable(moved_by(params, b, noise), parameterisation)
    return crossed


def fits_alike(
    reference: Float[ArrayLike, " Ns"],
    others: Sequence[Float[ArrayLike, " Ns"]],
    *,
    rtol: float = 0.01,
) -> bool:
    """Whether every family of ``others`` fits as well as ``reference`` at every width: their
    unperturbed errors ``E_m(0)`` agree within ``rtol`` (the precondition of comparing their
    perturbed errors, WLL Figs 7-8: models built from the same fits in other coordinates)."""
    ref = as_float64("reference", reference)
    rtol = positive_number("rtol", rtol)
    if not others:
        raise ValueError("others must hold at least one family of errors")
    for i, o in enumerate(others):
        if np.shape(o) != ref.shape:
            raise ValueError(f"others[{i}] has shape {np.shape(o)}, reference {ref.shape}")
    return all(bool(np.allclose(as_float64("others", o), ref, rtol=rtol)) for o in others)


def direct_above(
    direct_sets: Float[ArrayLike, "sets Ns n_betas"],
    stable_sets: Float[ArrayLike, "... sets Ns n_betas"],
) -> tuple[np.ndarray, np.ndarray]:
    """Per beta, is the direct family above the stable one(s) beyond the spread of their sets of
    draws (:func:`separated`)? Returns two boolean arrays (n_betas,): for the growth in the width
    (:func:`lrnn_core.wang_li_li.perturbation.width_growth` of each set) and for the widest
    model's ``E_m(beta)``. ``stable_sets`` may stack several stable maps on leading axes (every
    set of every map is one value of the pool). Where a set's narrowest and widest models both
    diverged (``inf``), its growth is undefined and the growth test at that beta is False."""
    d = np.asarray(direct_sets, np.float64)
    s = np.asarray(stable_sets, np.float64)
    if d.ndim != 3 or d.shape[1] < 2 or s.shape[-2:] != d.shape[1:]:
        raise ValueError(
            "direct_sets must be (sets, Ns >= 2, n_betas) and stable_sets (..., sets, "
            f"Ns, n_betas) with the same widths and betas, got {d.shape} and {s.shape}"
        )
    s = s.reshape(-1, *d.shape[1:])
    with np.errstate(invalid="ignore"):  # inf / inf: both widths diverged, growth undefined
        growth_d = np.array([width_growth(E) for E in d])
        growth_s = np.array([width_growth(E) for E in s])
    by_beta = range(d.shape[2])
    growth = [
        bool(
            not np.isnan(growth_d[:, j]).any()
            and not np.isnan(growth_s[:, j]).any()
            and separated(growth_d[:, j], growth_s[:, j])
        )
        for j in by_beta
    ]
    widest = [separated(d[:, -1, j], s[:, -1, j]) for j in by_beta]
    return np.array(growth), np.array(widest)


#: (activation, parameterisation) -> the models of each width, as :func:`nl_models` builds them.
Models = Mapping[tuple[str, str], Sequence[CTRNN]]


class Sizes(NamedTuple):
    """The sizes of the chapter's experiments that depend on the scale."""

    Ns_nl: tuple[int, ...]  # Figs. 7-8: widths m of the nonlinear RNNs
    n_test_nl: int  # Figs. 7-8: test sequences for E_m(beta)
    finetune_epochs: int  # Figs. 7-8: training after the least-squares fit
    mnist_side: int  # Fig. 9 / Table 1: MNIST images downsampled to side x side
    mnist_n_train: int  # ... training images
    mnist_n_test: int  # ... test images
    mnist_epochs: int  # ... epochs
    mnist_seeds: tuple[int, ...]  # ... seeds
    mnist_N: int  # ... hidden width


def eigenvalues_by_map(raw: Float[ArrayLike, " n"]) -> dict[str, np.ndarray]:
    """``lam = f(raw)`` (WLL eq. 18 reconstructed, :func:`recurrent_weight`) of every map of
    :data:`PARAMETERISATIONS`, for the same raw values."""
    return {p: np.asarray(recurrent_weight(jnp.asarray(raw), p)) for p in PARAMETERISATIONS}


def raw_moved_eigenvalues(lam: float, beta: float) -> dict[str, np.ndarray]:
    """``f(f^{-1}(lam) -+ beta)`` under every map: the eigenvalue ``lam`` after a perturbation of
    size ``beta`` of its raw parameter, in both directions."""
    deltas = beta * np.array([-1.0, 1.0])
    return {
        p: np.asarray(recurrent_weight(raw_from_weight(jnp.array(lam), p) + deltas, p))
        for p in PARAMETERISATIONS
    }


def inverse_sensitivity(rates: Float[ArrayLike, " n"], eps: float) -> np.ndarray:
    """``|d lam / d raw| = 2 raw lam^2`` of the "inverse" map ``lam = -1 / (raw^2 + eps)`` at
    ``lam = -rates``, on the branch ``raw = sqrt(1 / rate - eps) >= 0``."""
    rates = np.asarray(rates)
    return 2 * np.sqrt(1 / rates - eps) * rates**2


def polynomial_grid(T: float, points: int) -> tuple[np.ndarray, np.ndarray]:
    """``(t, rho(t))`` on ``points`` equispaced times of ``[0, T]``, ``rho = (1 + 0.1 t)^-1.1``
    (:func:`lrnn_core.core.targets.poly_memory`) computed in float64 (the fits resolve it to
    ~1e-13)."""
    t = np.linspace(0.0, T, positive_int("points", points))
    with jax.enable_x64(True):
        return t, np.asarray(poly_memory(t))


def fig4_error_sets(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    sets: int,
    parameterisation: str,
    perturbed: str,
    draws_per_set: int = 10,
) -> np.ndarray:
    """``E_m(beta)`` (WLL Def. 3.4, Fig. 4) of the least-squares linear RNNs with geometric rates
    of each width, for ``sets`` independent sets of ``draws_per_set`` draws (draws ``0..9``,
    ``10..19``, ... of ``key``), shape ``(sets, Ns, betas)``; no running max, float64 fits
    and kernels."""
    sets = positive_int("sets", sets)
    with jax.enable_x64(True):  # least-squares coefficients cancel down to 1e-13
        E = linear_perturbation_errors(
            rho, t, Ns, betas, key=key, draws=draws_per_set * sets, rates=geometric_rates,
            parameterisation=parameterisation, perturbed=perturbed, per_draw=True,
        )  # fmt: skip
    return sets_of_draws(E, repeats=draws_per_set, running_max=False).transpose(1, 0, 2)


class NLData(NamedTuple):
    """The test data of WLL Figs 7-8: times ``t`` (L,), the target memory ``rho`` on them, inputs
    ``u`` (n, L, 1), outputs ``y`` (n, L, 1) of the linear functional, and ``mean(y^2)``."""

    t: np.ndarray
    rho: np.ndarray
    u: Array
    y: Array
    target_var: float


def nl_test_data(key: Array, n: int, L: int, *, dt: float, amplitude: float) -> NLData:
    """``n`` Gaussian inputs of standard deviation ``amplitude`` over ``L`` steps and the outputs
    ``y_k = sum_j rho(t_j) u_{k-j} dt`` (WLL eq. 5) of the polynomial memory on them."""
    t = np.arange(positive_int("L", L)) * positive_number("dt", dt)
    rho = np.asarray(poly_memory(t))
    u = amplitude * jax.random.normal(key, (positive_int("n", n), L))
    y = linear_functional(rho, u, dt)[..., None]
    return NLData(t, rho, u[..., None], y, float(jnp.mean(y**2)))


def nl_models(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    runs: Mapping[str, Sequence[str]],
    Ns: Sequence[int],
    *,
    dt: float,
    finetune_epochs: int = 0,
    key: Array | None = None,
    L: int = 100,
    amplitude: float = 0.1,
) -> dict[tuple[str, str], list[CTRNN]]:
    """For each activation of ``runs`` and each of its maps, the least-squares fit of every width
    ``N`` of ``Ns`` (geometric rates, fastest 1) as an Euler CTRNN
    (:func:`lrnn_core.wang_li_li.fitting.fitted_rnn`), then, if ``finetune_epochs``, trained
    further on 12 800 fresh sequences of ``key`` (the paper's optimiser, WLL App. E)."""
    if finetune_epochs and key is None:
        raise ValueError("fine-tuning needs a key")

    def model(N: int, activation: str, parameterisation: str) -> CTRNN:
        kw = dict(activation=activation, parameterisation=parameterisation, dt=dt)
        params = fitted_rnn(rho, t, geometric_rates(N, fastest=1.0), **kw)
        if not finetune_epochs:
            return params
        u = amplitude * jax.random.normal(key, (12_800, L))
        y = linear_functional(np.asarray(poly_memory(np.arange(L) * dt)), u, dt)[..., None]
        run = train_ctrnn(
            jax.tree.map(lambda a: a[None], params), u[..., None], y, key=key,
            epochs=finetune_epochs, progress=False, **kw,
        )  # fmt: skip
        return jax.tree.map(lambda a: a[0], run.params)

    return {(a, p): [model(N, a, p) for N in Ns] for a, ps in runs.items() for p in ps}


def nl_error_sets(
    models: Models,
    data: NLData,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    repeats: int,
    sets: int,
    dt: float,
    perturbed: str,
) -> dict[tuple[str, str], np.ndarray]:
    """``E_m(beta)`` of each run's models (e.g. the fits of WLL Figs 7-8, one per width) by the
    authors' protocol (max over ``repeats`` draws, running max over beta; :func:`sets_of_draws`)
    for ``sets`` independent sets of draws of ``key`` (the same noise for every model), shape
    ``(sets, Ns, betas)``. The losses are the test MSE
    (:func:`lrnn_core.wang_li_li.ctrnn.output_mse`) of every perturbed draw
    (:func:`lrnn_core.wang_li_li.perturbation.perturbed_losses`), one set of draws at a time, so
    that calls with any number of sets share their compiled programs."""
    betas = check_betas(betas, increasing=True)
    u, y = as_inexact("data.u", data.u), as_inexact("data.y", data.y)
    check_finite("data.u", u)
    check_finite("data.y", y)
    out = {}
    for (a, p), ms in models.items():
        if len(ms) == 0:
            raise ValueError("models must hold at least one CTRNN per run")
        for params in ms:
            check_ctrnn("models", params)
        loss = output_loss_of(a, p, dt)
        kw = dict(key=key, draws=repeats * sets, perturbed=perturbed, chunk=repeats, data=(u, y))
        losses = np.array([perturbed_losses(loss, q, betas, **kw) for q in ms])
        out[a, p] = sets_of_draws(losses, repeats=repeats).transpose(1, 0, 2)
    return out


def widget_memories(
    models: Models,
    beta: float,
    keys: Sequence[Array],
    *,
    L: int,
    amplitude: float,
    dt: float,
    perturbed: str,
) -> tuple[dict[tuple[str, str], np.ndarray], dict[tuple[str, str], np.ndarray]]:
    """For each (activation, parameterisation)'s single CTRNN: the Heaviside memory (WLL Def. 2.1,
    :func:`lrnn_core.core.memory.heaviside_memory`) over ``L`` steps of the model and of one
    perturbation of size ``beta`` per key (:func:`lrnn_core.wang_li_li.perturbation.perturb`),
    shape ``(1 + len(keys), L)`` (row 0 the unperturbed model), and whether each perturbation
    pushed an eigenvalue to ``>= 0``."""
    memory, crossed = {}, {}
    for (a, p), (params,) in models.items():
        check_ctrnn("params", params)
        perturbed_models = [perturb(params, beta, k, perturbed=perturbed) for k in keys]
        crossed[a, p] = np.array([unstable(q, p) for q in perturbed_models], bool)

        def memory_of(q: CTRNN, a: str = a, p: str = p) -> np.ndarray:
            def model(u: Array) -> Array:
                return ctrnn_outputs(q, u[:, None], activation=a, parameterisation=p, dt=dt)[:, 0]

            return heaviside_memory(jax.jit(model), L, amplitude=amplitude, dt=dt)

        memory[a, p] = np.array([memory_of(q) for q in [params, *perturbed_models]])
    return memory, crossed


def lru_worst_moduli(
    nu_log: Float[ArrayLike, " N"],
    theta_log: Float[ArrayLike, " N"],
    betas: Float[ArrayLike, " n_betas"],
    *,
    coords: str,
    draws: int,
    first_seed: int,
) -> np.ndarray:
    """The largest ``|lam|`` over ``draws`` perturbations of the LRU eigenvalues at each beta
    (:func:`lrnn_core.wang_li_li.perturbation.lru_perturbed_modulus`, Orvieto et al. 2023 eq. 6),
    perturbed in ``coords``."""
    return np.array(
        [
            lru_perturbed_modulus(
                nu_log, theta_log, b, coords=coords, draws=draws, first_seed=first_seed
            )
            for b in np.asarray(betas)
        ]
    )
