"""Prop. 3.1 of Wang & Xue (NeurIPS 2023) as a converged fit: two token-wise layers,

    z_k = sigma(w u_k + b)  (N units),    y_k = a . z_k + c,

which is ``StackedSSM(1, N, 1, depth=1, recurrent=False, mixing=False)`` with ``B = w``, layer
bias ``b``, readout ``W = a`` and readout bias ``c`` (the tests check it). The proposition is an
existence statement (Barron: a width ``N`` reaches a squared error of order ``C_f^2 / N``), so the
book reads it by the best error an optimiser can certify: :func:`fit_tokenwise` minimises the
training mean squared error with SciPy's Levenberg-Marquardt (``least_squares``, ``method="lm"``,
exact Jacobian, float64) from several random starts, and returns the best *converged* fit (the
solver's convergence test met before ``max_nfev``) with the largest entry of its gradient
``2 J^T r / n``; a start that stops on the evaluation limit is kept only if none converged, and
says so.

Random starts (ours): ``w ~ N(0, 3^2)``, ``b ~ N(0, 1)``, ``a ~ N(0, 1 / N)``, ``c = 0``.

:func:`tokenwise_experiment` is the chapter's Fig. 2 run: converged fits of several widths to
``f`` on a training grid, their test mean squared errors, the identity-activation control and the
two baselines of :mod:`lrnn_core.core.baselines` (the mean, the least-squares affine map).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import scipy.optimize
from jaxtyping import ArrayLike, Float

from lrnn_core.core.baselines import causal_filter_mse, ignores_input_mse
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_finite,
    check_shape,
    check_type,
    positive_int,
)

#: Activation and its derivative as a function of the activation's value or argument.
ACTIVATIONS = ("tanh", "identity")


class TokenFit(NamedTuple):
    """A fitted token-wise two-layer SSM: weights ``w``, ``b``, ``a`` (N,), bias ``c``; its
    ``train_mse``, the final gradient norm ``grad_norm`` and whether the solver ``converged``."""

    w: np.ndarray
    b: np.ndarray
    a: np.ndarray
    c: float
    activation: str
    train_mse: float
    grad_norm: float
    converged: bool


def _act(activation: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if activation == "tanh":
        z = np.tanh(x)
        return z, 1 - z**2
    return x, np.ones_like(x)


def _points(name: str, x: ArrayLike) -> np.ndarray:
    x = as_float64(name, x)
    check_shape(name, x, (None,))
    check_finite(name, x)
    return x


def tokenwise_outputs(fit: TokenFit, u: Float[ArrayLike, " n"]) -> Float[np.ndarray, " n"]:
    """``y = a . sigma(w u + b) + c`` at the points ``u`` (n,)."""
    u = _points("u", u)
    z, _ = _act(fit.activation, np.outer(u, fit.w) + fit.b)
    return z @ fit.a + fit.c


def _split(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    N = (theta.size - 1) // 3
    return theta[:N], theta[N : 2 * N], theta[2 * N : 3 * N], float(theta[-1])


def _residual(theta: np.ndarray, u: np.ndarray, y: np.ndarray, act: str) -> np.ndarray:
    w, b, a, c = _split(theta)
    return _act(act, np.outer(u, w) + b)[0] @ a + c - y


def _jacobian(theta: np.ndarray, u: np.ndarray, y: np.ndarray, act: str) -> np.ndarray:
    """``d residual / d theta``, ``theta = (w, b, a, c)``: shape ``(n, 3N + 1)``."""
    w, b, a, _ = _split(theta)
    z, dz = _act(act, np.outer(u, w) + b)
    return np.hstack([dz * a * u[:, None], dz * a, z, np.ones((u.size, 1))])


def fit_tokenwise(
    u: Float[ArrayLike, " n"],
    y: Float[ArrayLike, " n"],
    N: int,
    *,
    rng: np.random.Generator,
    activation: str = "tanh",
    restarts: int = 4,
    max_nfev: int = 2000,
) -> TokenFit:
    """The best of ``restarts`` Levenberg-Marquardt fits of width ``N`` to the pairs
    ``(u, y)``, converged fits first (module docstring)."""
    u, y = _points("u", u), _points("y", y)
    check_shape("y", y, u.shape)
    N = positive_int("N", N)
    activation = check_choice("activation", activation, ACTIVATIONS)
    check_type("rng", rng, np.random.Generator, what="a numpy Generator")
    fits = []
    for _ in range(positive_int("restarts", restarts)):
        w0, b0, a0 = 3 * rng.standard_normal(N), rng.standard_normal(N), rng.standard_normal(N)
        start = np.concatenate([w0, b0, a0 / np.sqrt(N), [0.0]])
        res = scipy.optimize.least_squares(
            _residual, start, jac=_jacobian, args=(u, y, activation), method="lm",
            ftol=1e-15, xtol=1e-15, gtol=1e-15, max_nfev=positive_int("max_nfev", max_nfev),
        )  # fmt: skip
        r = _residual(res.x, u, y, activation)
        grad = 2 * _jacobian(res.x, u, y, activation).T @ r / u.size
        mse, grad_norm = float(np.mean(r**2)), float(np.max(np.abs(grad)))
        fits.append(TokenFit(*_split(res.x), activation, mse, grad_norm, res.status > 0))
    return min(fits, key=lambda f: (not f.converged, f.train_mse))


class TokenwiseRun(NamedTuple):
    """Fig. 2: the fit per width (``fits``), its test MSE (``err``) and solver convergence
    (``converged``); the identity-activation ``control`` fit and its ``control_err``; the
    baselines' test MSE ``base`` (``"ignores input"``, ``"linear"``)."""

    fits: dict[int, TokenFit]
    err: dict[int, float]
    converged: dict[int, bool]
    control: TokenFit
    control_err: float
    base: dict[str, float]


def tokenwise_experiment(
    f: Callable[[np.ndarray], np.ndarray],
    u_train: Float[ArrayLike, " n"],
    u_test: Float[ArrayLike, " m"],
    Ns: Sequence[int],
    *,
    rngs: Mapping[int, np.random.Generator],
    restarts: int,
    control_rng: np.random.Generator,
    control_N: int = 4,
) -> TokenwiseRun:
    """Prop. 3.1 on ``y = f(u)``: :func:`fit_tokenwise` of each width ``N`` in ``Ns`` (random
    starts from ``rngs[N]``) and of the identity activation (width ``control_N``, from
    ``control_rng``), scored by the test MSE ``mean (y_hat - f(u_test))^2``."""
    u_train, u_test = _points("u_train", u_train), _points("u_test", u_test)
    f_train, f_test = f(u_train), f(u_test)

    def test_mse(fit: TokenFit) -> float:
        return float(np.mean((tokenwise_outputs(fit, u_test) - f_test) ** 2))

    fits = {N: fit_tokenwise(u_train, f_train, N, rng=rngs[N], restarts=restarts) for N in Ns}
    control = fit_tokenwise(u_train, f_train, control_N, rng=control_rng, activation="identity")
    base = {
        "ignores input": ignores_input_mse(f_train[:, None], f_test[:, None]),
        "linear": causal_filter_mse(
            u_train[:, None], f_train[:, None], u_test[:, None], f_test[:, None]
        ),
    }
    err = {N: test_mse(fit) for N, fit in fits.items()}
    converged = {N: fit.converged for N, fit in fits.items()}
    return TokenwiseRun(fits, err, converged, control, test_mse(control), base)
