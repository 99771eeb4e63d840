"""The perturbation error ``E_m(beta)`` of a fitted model (Wang, Li & Li 2024, Def. 3.4, eq. 11).

The definition (formula lost in the text version) is the worst error of the model whose parameters
are moved within a radius ``beta`` of the fitted ones; the text says "perturb *each* parameter by a
small amount" (Sec. 3.2). The one protocol of the book follows the authors' code
(github radarFudan/Curse-of-memory, ``src/perturb.py``): every parameter tensor ``p`` gets its own
Gaussian noise ``n``, rescaled to sup-norm ``beta``,

    p  ->  p + beta * n / max|n|,

the loss of the perturbed model is evaluated, and the maximum over a few independent draws is taken
(10 draws for linear RNNs, 3 for nonlinear ones in the paper). The same noise directions are used at
every ``beta`` (draw ``i`` uses ``fold_in(key, i)``), as the authors' code re-seeds each draw.

Which parameters are perturbed is an explicit argument, ``perturbed``:

* ``"all"`` (the paper and the authors' code): every parameter tensor. ``src/perturb.py`` loops over
  ``model.named_parameters()``, which include the biases of the encoder ``nn.Linear`` (the bias
  ``b`` inside the activation of our CTRNN) and of the decoder.
* ``"all_but_bias"``: the field ``b`` of a :class:`~lrnn_core.wang_li_li.ctrnn.CTRNN` (the top-level
  entry named ``b`` of any NamedTuple or dict) is left as it is.

Both rules give the other tensors the same noise (leaf ``i`` always uses the ``i``-th key).
The authors' code also carries the maximum over from smaller to larger ``beta``;
:func:`perturbation_error` does that only when asked (``running_max=True``), so that by default each
``beta`` stands alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, PyTree

from lrnn_core.core.eigenvalues import lru_eigenvalues
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_not_empty,
    check_type,
    nonnegative_int,
    positive_int,
    positive_number,
    real_number,
)
from lrnn_core.wang_li_li.ctrnn import output_mse
from lrnn_core.wang_li_li.fitting import fit_linear_rnn, kernel_loss

#: The rules for which parameters are perturbed; "all" is the paper's and the authors' protocol.
PERTURBED = ("all", "all_but_bias")

Params = PyTree
#: The shortest row of Gaussians drawn per leaf (:func:`perturbation_noise`), one program per
#: length: the WLL chapters' leaves hold at most 1,024 entries at ``book`` scale.
NOISE_ROW = 1024


def _is_bias(path: tuple[object, ...]) -> bool:
    first = path[0] if path else None
    name = getattr(first, "name", getattr(first, "key", None))
    return name == "b"


def perturbation_noise(params: Params, key: Array, *, perturbed: str = "all") -> Params:
    """The Gaussian noise ``n ~ N(0, I)`` of each array leaf of ``params`` (leaf ``i`` uses the
    ``i``-th key of ``split(key)``), zeros for the leaves that ``perturbed`` leaves unchanged: the
    direction of a draw of WLL Def. 3.4 (:func:`perturb`)."""
    return jax.tree.map(lambda n: n[0], _draws_noise(params, key[None], perturbed))


def _draws_noise(params: Params, keys: Array, perturbed: str) -> Params:
    """:func:`perturbation_noise` of each key, on a leading axis. Leaf ``i`` of shape ``s`` gets
    the first ``prod(s)`` entries of ``normal(k_i, (row,))``, ``k_i`` the ``i``-th key of
    ``split(key)``: JAX's threefry draws entry ``j`` from counter ``j`` alone, so these are the bits
    of ``normal(k_i, s)``, and the random numbers compile once per row length and dtype, not once
    per model (Gaussian noise compiles slowly on CPU, about a second per program)."""
    check_choice("perturbed", perturbed, PERTURBED)  # before any draw
    leaves = [jnp.asarray(p) for p in jax.tree.leaves(params)]
    row = max([NOISE_ROW, *(1 << (p.size - 1).bit_length() for p in leaves)])  # a power of 2
    dtypes, n_leaves = {p.dtype.name for p in leaves}, max(len(leaves), 1)
    rows = {d: _noise_rows(keys, n_leaves, row, d) for d in dtypes}
    return _cut_noise(params, rows, perturbed=perturbed)


@functools.partial(jax.jit, static_argnames=("n_leaves", "row", "dtype"))
def _noise_rows(keys: Array, n_leaves: int, row: int, dtype: str) -> Array:
    """``normal(k_i, (row,))`` for each key and each key ``k_i`` of its ``split(key, n_leaves)``."""
    split = jax.vmap(lambda k: jax.random.split(k, n_leaves))(keys)
    return jax.vmap(jax.vmap(lambda k: jax.random.normal(k, (row,), dtype)))(split)


@functools.partial(jax.jit, static_argnames="perturbed")
def _cut_noise(params: Params, rows: dict[str, Array], perturbed: str) -> Params:
    """Each leaf's noise cut from its row (``rows`` by dtype), zeros where ``perturbed`` says."""
    leaves, treedef = jax.tree_util.tree_flatten_with_path(params)
    if perturbed == "all_but_bias" and not any(_is_bias(path) for path, _ in leaves):
        raise ValueError("perturbed='all_but_bias' needs params with a bias entry 'b'")

    def noise(i: int, path: tuple[object, ...], p: Array) -> Array:
        p = jnp.asarray(p)
        row = rows[p.dtype.name]  # (draws, leaves, row length)
        if p.size == 0 or (perturbed == "all_but_bias" and _is_bias(path)):
            return jnp.zeros((len(row), *p.shape), p.dtype)
        return row[:, i, : p.size].reshape(len(row), *p.shape)

    return jax.tree.unflatten(treedef, [noise(i, *leaf) for i, leaf in enumerate(leaves)])


def moved_by(params: Params, beta: float | Array, noise: Params) -> Params:
    """``p + beta * n / max|n|`` for each leaf ``p`` and its noise ``n``
    (:func:`perturbation_noise`; WLL Def. 3.4); a leaf whose noise is all zero is not moved."""

    def move(p: Array, n: Array) -> Array:
        p = jnp.asarray(p)
        if p.size == 0:
            return p
        scale = jnp.max(jnp.abs(n))
        return jnp.where(scale > 0, p + beta * n / scale, p)

    return jax.tree.map(move, params, noise)


def perturb(params: Params, beta: float | Array, key: Array, *, perturbed: str = "all") -> Params:
    """``params`` with each array leaf ``p`` moved to ``p + beta * n / max|n|``, ``n ~ N(0, I)``
    (WLL Def. 3.4, the authors' ``src/perturb.py``); ``perturbed="all_but_bias"`` leaves the
    top-level entry ``b`` unchanged."""
    return moved_by(params, beta, perturbation_noise(params, key, perturbed=perturbed))


def check_betas(
    betas: Float[ArrayLike, " n_betas"], *, increasing: bool = False
) -> Float[np.ndarray, " n_betas"]:
    """The perturbation sizes ``beta`` of WLL eq. (9) (``||theta~ - theta|| <= beta``) as a float64
    array: non-empty, 1-D, finite, ``>= 0`` (strictly increasing if ``increasing``, as a curve
    ``E_m(beta)`` needs); ValueError naming ``betas`` otherwise."""
    betas = as_float64("betas", betas)
    if betas.ndim != 1:
        raise ValueError(f"betas must be a 1-D array, got shape {betas.shape}")
    check_not_empty("betas", betas)
    check_finite("betas", betas)
    if np.any(betas < 0):
        raise ValueError(f"betas must be >= 0, got {betas}")
    if increasing and np.any(np.diff(betas) <= 0):
        raise ValueError(f"betas must be strictly increasing, got {betas}")
    return betas


@functools.partial(jax.jit, static_argnames="loss")
def _loss_grid(
    loss: Callable[..., Array], params: Params, betas: Array, noise: Params, data: tuple
) -> Array:
    """``loss(moved_by(params, beta, n), *data)`` for every beta and every draw ``n`` of
    ``noise`` (leading axis): one program per loss function and shapes, whatever the values."""

    def one(beta: Array, n: Params) -> Array:
        return loss(moved_by(params, beta, n), *data)

    return jax.vmap(jax.vmap(one, (None, 0)), (0, None))(betas, noise)


def perturbed_losses(
    loss_of_params: Callable[..., Array],
    params: Params,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int = 10,
    perturbed: str,
    chunk: int = 10,
    data: Sequence[ArrayLike] = (),
) -> np.ndarray:
    """Losses of the perturbed models (WLL Def. 3.4), shape ``(len(betas), draws)``: draw ``i``
    moves the parameters along the noise of ``fold_in(key, i)`` (the same direction at every
    beta, as the authors' code re-seeds each draw), ``chunk`` draws at a time (``vmap`` over
    betas and the draws of a chunk; the last chunk is filled up with further draws, dropped).
    NaN (a diverged model) becomes ``inf``.

    ``loss_of_params(params, *data)`` must be traceable by JAX. It is a static argument of the
    compiled grid, and ``params``, ``betas`` and ``data`` are traced ones: the same function
    object (a module-level function, or one from a cached factory) on arrays of the same shapes
    compiles once, for any model and data. ``perturbed`` is one of :data:`PERTURBED` (no
    default: say which rule is used)."""
    check_type("loss_of_params", loss_of_params, callable)
    check_choice("perturbed", perturbed, PERTURBED)
    check_betas(betas)
    betas = as_inexact("betas", betas)  # JAX's float (float64 under x64), as given
    draws, chunk = positive_int("draws", draws), positive_int("chunk", chunk)
    chunk = min(chunk, draws)
    data = tuple(jnp.asarray(d) for d in data)
    parts = []
    for first in range(0, draws, chunk):
        keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(first + jnp.arange(chunk))
        noise = _draws_noise(params, keys, perturbed=perturbed)
        parts.append(np.asarray(_loss_grid(loss_of_params, params, betas, noise, data)))
    table = np.concatenate(parts, axis=1)[:, :draws]
    if table.shape != (betas.shape[0], draws):
        raise ValueError(f"loss_of_params must return a scalar loss, got shape {table.shape[2:]}")
    return np.where(np.isnan(table), np.inf, table)


@functools.cache
def kernel_loss_of(parameterisation: str) -> Callable[[Params, Array, Array], Array]:
    """``(params, rho, t) -> kernel_loss(params, rho, t)`` in ``parameterisation``
    (:func:`lrnn_core.wang_li_li.fitting.kernel_loss`): one function object per
    parameterisation, so that :func:`perturbed_losses` compiles once per shape."""
    return lambda params, rho, t: kernel_loss(params, rho, t, parameterisation=parameterisation)


@functools.cache
def output_loss_of(
    activation: str, parameterisation: str, dt: float
) -> Callable[[Params, Array, Array], Array]:
    """``(params, u, y) -> output_mse(params, u, y)`` of a CTRNN
    (:func:`lrnn_core.wang_li_li.ctrnn.output_mse`): one function object per
    ``(activation, parameterisation, dt)``, so that :func:`perturbed_losses` compiles once per
    shape."""

    def loss(params: Params, u: Array, y: Array) -> Array:
        return output_mse(
            params, u, y, activation=activation, parameterisation=parameterisation, dt=dt
        )

    return loss


def perturbation_error(
    loss_of_params: Callable[..., Array],
    params: Params,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int = 10,
    perturbed: str,
    running_max: bool = False,
    data: Sequence[ArrayLike] = (),
) -> np.ndarray:
    """``E_m(beta)`` for each beta (WLL Def. 3.4, eq. 11): the maximum over ``draws`` perturbations
    of the loss ``loss_of_params(params, *data)`` (:func:`perturbed_losses`). ``beta = 0`` gives
    the unperturbed loss. A perturbed model that diverges gives ``inf``. ``perturbed`` says which
    parameters move (:data:`PERTURBED`; the paper's is "all"). ``running_max=True`` also takes
    the maximum over all smaller betas (the authors' code)."""
    running_max = check_flag("running_max", running_max)
    table = perturbed_losses(
        loss_of_params, params, betas, key=key, draws=draws, perturbed=perturbed, data=data
    )
    worst = table.max(axis=1)
    if running_max:
        order = np.argsort(np.asarray(betas), kind="stable")
        worst[order] = np.maximum.accumulate(worst[order])
    return worst


def lru_perturbed_modulus(
    nu_log: Float[ArrayLike, " N"],
    theta_log: Float[ArrayLike, " N"],
    beta: float,
    *,
    coords: str,
    draws: int = 20,
    first_seed: int = 100,
) -> float:
    """The largest ``|lam|`` over ``draws`` perturbations of size ``beta`` (the same sup-norm
    Gaussian noise as :func:`perturb`) of the LRU eigenvalues ``lam = exp(-exp(nu_log) + i
    exp(theta_log))`` (Orvieto et al. 2023, eq. 6; WLL Sec. 3.4 names the LRU as the discrete-time
    stable parameterisation). ``coords="lru"`` perturbs ``(nu_log, theta_log)``, ``coords="direct"``
    perturbs ``(Re lam, Im lam)``. Draw ``d`` uses ``jax.random.key(first_seed + d)``."""
    check_choice("coords", coords, ("lru", "direct"))
    beta = real_number("beta", beta, low=0.0)
    draws = positive_int("draws", draws)
    first_seed = nonnegative_int("first_seed", first_seed)
    nu_log, theta_log = as_inexact("nu_log", nu_log), as_inexact("theta_log", theta_log)
    check_finite("nu_log", nu_log)
    check_finite("theta_log", theta_log)
    lam = lru_eigenvalues(nu_log, theta_log)
    worst = 0.0
    for d in range(draws):
        key = jax.random.key(first_seed + d)
        if coords == "lru":
            nu, th = perturb((nu_log, theta_log), beta, key)
            moved = lru_eigenvalues(nu, th)
        else:
            re, im = perturb((lam.real, lam.imag), beta, key)
            moved = re + 1j * im
        worst = max(worst, float(jnp.abs(moved).max()))
    return worst


def linear_perturbation_errors(
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    Ns: Sequence[int],
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int = 10,
    rates: Callable[[int], ArrayLike] | None = None,
    parameterisation: str = "direct",
    perturbed: str,
    per_draw: bool = False,
) -> np.ndarray:
    """``E_m(beta)`` (len(Ns), len(betas)) of the least-squares linear RNNs of each width ``N``
    for the kernel ``rho`` on the grid ``t`` (WLL Def. 3.4 with Figs 1 and 4; App. D).

    Width ``N`` is :func:`lrnn_core.wang_li_li.fitting.fit_linear_rnn` with the decay rates
    ``rates(N)`` (default: its uniform rates), expressed in ``parameterisation``, and its error is
    the largest mean squared kernel error (:func:`lrnn_core.wang_li_li.fitting.kernel_loss`) over
    ``draws`` perturbations (:func:`perturbed_losses` with ``key`` and ``perturbed``; NaN as
    ``inf``), the same noise for every width. ``per_draw=True`` returns the kernel error of every
    draw instead, (len(Ns), len(betas), draws), whose maximum over the last axis is
    ``E_m(beta)``. The fit is in float64; run inside ``jax.enable_x64(True)`` to keep the
    perturbed kernels in float64 too."""
    Ns = [positive_int("Ns", N) for N in Ns]
    check_not_empty("Ns", np.asarray(Ns))
    if rates is not None and not callable(rates):
        raise TypeError(f"rates must be a function of the width, got {type(rates).__name__}")
    per_draw = check_flag("per_draw", per_draw)
    table = np.array(
        [
            perturbed_losses(
                kernel_loss_of(parameterisation),
                fit_linear_rnn(
                    rho,
                    t,
                    N,
                    rates=None if rates is None else rates(N),
                    parameterisation=parameterisation,
                ),
                betas,
                key=key,
                draws=draws,
                perturbed=perturbed,
                data=(rho, t),
            )  # fmt: skip
            for N in Ns
        ]
    )
    return table if per_draw else table.max(axis=2)


def width_growth(
    errors: Float[ArrayLike, "Ns n_betas"], *, widest_only: bool = False
) -> np.ndarray:
    """How much ``E_m(beta)`` grows with the width, for each beta: ``max_m E_m / E_{m_1}`` over the
    rows ``m_1 < m_2 < ...`` of ``errors`` (``widest_only=True``: ``E_{m_last} / E_{m_1}``). A
    bounded family stays near 1 (or below); an unstable one grows with ``m`` (WLL Def. 3.4: stable
    approximation asks ``E_m(beta)`` to be bounded in ``m``). ``inf`` entries (diverged models)
    give ``inf``."""
    widest_only = check_flag("widest_only", widest_only)
    errors = np.asarray(errors, dtype=np.float64)
    if errors.ndim != 2 or errors.shape[0] < 2:
        raise ValueError(
            f"errors must be 2-D (Ns, betas) with at least two widths, got {errors.shape}"
        )
    if np.any(np.isnan(errors)) or np.any(errors < 0) or np.any(errors[0] == 0):
        raise ValueError("errors must be >= 0, not NaN, and > 0 for the narrowest width")
    top = errors[-1] if widest_only else errors.max(axis=0)
    return top / errors[0]


class GrowthBounds(NamedTuple):
    """Distribution-free bounds on the growth factor ``median(E_wide) / median(E_narrow)`` of a
    perturbation error with the width: ``lower`` and ``upper``, each holding with probability at
    least ``confidence``."""

    lower: float
    upper: float
    confidence: float


def width_growth_bounds(
    widest: Float[ArrayLike, " sets"], narrowest: Float[ArrayLike, " sets"]
) -> GrowthBounds:
    """One-sided confidence bounds on ``median(widest) / median(narrowest)`` from independent sets
    of draws of ``E_m(beta)`` at one ``beta`` (each set a maximum over its draws, so the sets of a
    width are i.i.d.). For ``n`` i.i.d. values of a continuous law the largest lies below the
    median with probability ``2**-n`` and the smallest above it with the same probability, so
    ``upper = max(widest) / min(narrowest)`` exceeds the ratio of the medians, and ``lower =
    min(widest) / max(narrowest)`` stays below it, each with probability at least ``1 - 2**-n_w
    - 2**-n_n`` (``confidence``). A family bounded in ``m`` is shown by ``upper`` below a bound
    stated before the run; one that grows, by ``lower`` above it."""
    w, n = as_float64("widest", widest), as_float64("narrowest", narrowest)
    for name, x in (("widest", w), ("narrowest", n)):
        if x.ndim != 1 or x.size < 2:
            raise ValueError(name + " must hold at least two sets (a 1-D array)")
        if np.any(~np.isfinite(x)) or np.any(x <= 0):
            raise ValueError(name + " must hold finite errors > 0")
    confidence = 1.0 - 2.0**-w.size - 2.0**-n.size
    return GrowthBounds(float(w.min() / n.max()), float(w.max() / n.min()), confidence)


def bias_response_error(
    lam: Float[ArrayLike, " N"],
    c: Float[ArrayLike, " N"],
    steps: int,
    *,
    dt: float = 1.0,
    rng: np.random.Generator,
    noise_draws: int = 20_000,
) -> float:
    """Expected output MSE per ``beta**2`` when only the bias ``b`` of a diagonal Euler CTRNN in
    its linear regime is perturbed by :func:`perturb`'s noise ``beta * n / max|n|``.

    A constant drive ``db_i`` moves state ``i`` to ``x_{i,k} = db_i (1 - (1 + lam_i dt)^k) /
    |lam_i|`` (from ``x_{k+1} = x_k + dt (lam_i x_k + db_i)``, ``x_0 = 0``), which saturates at
    ``db_i / |lam_i|``: the slower the mode, the larger the response. The noise has ``E[db_i db_j]
    = 0`` for ``i != j`` (flipping the sign of ``n_i`` leaves ``max|n|`` unchanged), so the output
    ``y_k = sum_i c_i x_{i,k}`` has

        E[y_k^2] / beta^2 = q_N sum_i c_i^2 (1 - (1 + lam_i dt)^k)^2 / lam_i^2,
        q_N = E[n_1^2 / max_j n_j^2],

    averaged here over ``k = 1..steps``; ``q_N`` (1 for ``N = 1``) is estimated from
    ``noise_draws`` Gaussian vectors of ``rng``. Needs ``lam < 0``."""
    lam, c = np.asarray(lam, np.float64), np.asarray(c, np.float64)
    if lam.ndim != 1 or c.shape != lam.shape:
        raise ValueError(f"lam and c must be 1-D of the same length, got {lam.shape}, {c.shape}")
    check_finite("lam", lam)
    check_finite("c", c)
    if np.any(lam >= 0):
        raise ValueError("lam must be < 0 (a stable diagonal recurrence)")
    steps = positive_int("steps", steps)
    dt = positive_number("dt", dt)
    noise_draws = positive_int("noise_draws", noise_draws)
    check_type("rng", rng, np.random.Generator, what="a numpy Generator")
    k = np.arange(1, steps + 1)[:, None]
    response = (1 - (1 + lam * dt) ** k) / -lam  # (steps, N): state per unit of constant drive
    n = rng.normal(size=(noise_draws, lam.size))
    q = np.mean(n**2 / np.max(np.abs(n), axis=1, keepdims=True) ** 2)
    return float(q * np.mean(np.sum(c**2 * response**2, axis=1)))
