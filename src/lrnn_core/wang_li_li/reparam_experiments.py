"""The experiments of the stable-reparameterisation chapter (Wang, Li & Li, ICLR 2024, Sec. 3.4,
eq. 18 reconstructed, Figs 4, 7-8 and the LRU check): the eigenvalues of the maps
``lam = f(raw)``, the perturbation errors ``E_m(beta)`` (Def. 3.4, eq. 11) of the least-squares
linear and nonlinear RNNs in sets of independent draws, the perturbed memories of the explorer and
the perturbed LRU moduli. The checks they feed are in
:mod:`lrnn_core.wang_li_li.reparam_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.targets import linear_functional, poly_memory
from lrnn_core.core.validate import positive_int, positive_number
from lrnn_core.wang_li_li.ctrnn import (
    CTRNN,
    PARAMETERISATIONS,
    raw_from_weight,
    recurrent_weight,
)
from lrnn_core.wang_li_li.fitting import fitted_rnn, geometric_rates, train_ctrnn
from lrnn_core.wang_li_li.perturbation import (
    linear_perturbation_errors,
    lru_perturbed_modulus,
)
from lrnn_core.wang_li_li.reparam_perturbation import (
    model_draw_losses,
    perturbed_memories,
    sets_of_draws,
)

__all__ = [
    "NLData",
    "Sizes",
    "eigenvalues_by_map",
    "fig4_error_sets",
    "inverse_sensitivity",
    "lru_worst_moduli",
    "nl_error_sets",
    "nl_model",
    "nl_models",
    "nl_test_data",
    "polynomial_grid",
    "raw_moved_eigenvalues",
    "widget_memories",
]

#: (activation, parameterisation) -> the models of each width, as :func:`nl_model` builds them.
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


def nl_model(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    N: int,
    *,
    activation: str,
    parameterisation: str,
    dt: float,
    finetune_epochs: int = 0,
    key: Array | None = None,
    L: int = 100,
    amplitude: float = 0.1,
) -> CTRNN:
    """The least-squares fit of width ``N`` (geometric rates, fastest 1) as an Euler CTRNN
    (:func:`lrnn_core.wang_li_li.fitting.fitted_rnn`), then, if ``finetune_epochs``, trained
    further on 12 800 fresh sequences of ``key`` (the paper's optimiser, WLL App. E)."""
    params = fitted_rnn(
        rho, t, geometric_rates(N, fastest=1.0), activation=activation,
        parameterisation=parameterisation, dt=dt,
    )  # fmt: skip
    if not finetune_epochs:
        return params
    if key is None:
        raise ValueError("fine-tuning needs a key")
    u = amplitude * jax.random.normal(key, (12_800, L))
    y = linear_functional(np.asarray(poly_memory(np.arange(L) * dt)), u, dt)[..., None]
    run = train_ctrnn(
        jax.tree.map(lambda a: a[None], params), u[..., None], y, key=key,
        epochs=finetune_epochs, activation=activation, parameterisation=parameterisation,
        dt=dt, progress=False,
    )  # fmt: skip
    return jax.tree.map(lambda a: a[0], run.params)


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
    """:func:`nl_model` of every width for each activation of ``runs`` and each of its maps."""
    return {
        (a, p): [
            nl_model(
                rho,
                t,
                N,
                activation=a,
                parameterisation=p,
                dt=dt,
                finetune_epochs=finetune_epochs,
                key=key,
                L=L,
                amplitude=amplitude,
            )  # fmt: skip
            for N in Ns
        ]
        for a, ps in runs.items()
        for p in ps
    }


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
    """``E_m(beta)`` of each run's models by the authors' protocol (WLL Figs 7-8: max over
    ``repeats`` draws, running max over beta; :func:`sets_of_draws`) for ``sets`` independent sets
    of draws of ``key`` (the same noise for every model), shape ``(sets, Ns, betas)``; one set
    of draws at a time, so that calls with any number of sets share their compiled programs."""
    out = {}
    for (a, p), ms in models.items():
        losses = model_draw_losses(
            ms, data.u, data.y, betas, key=key, draws=repeats * sets, activation=a,
            parameterisation=p, dt=dt, perturbed=perturbed, chunk=repeats,
        )  # fmt: skip
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
    """The Heaviside memories of each (activation, parameterisation)'s single model and of one
    perturbation of size ``beta`` per key (:func:`perturbed_memories`), and which perturbations
    pushed an eigenvalue to ``>= 0``."""
    memory, crossed = {}, {}
    for (a, p), (params,) in models.items():
        memory[a, p], crossed[a, p] = perturbed_memories(
            params, beta, keys, L=L, activation=a, parameterisation=p, amplitude=amplitude,
            dt=dt, perturbed=perturbed,
        )  # fmt: skip
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
