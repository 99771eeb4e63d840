"""The Linear Recurrent Unit (Orvieto et al., 2023) and the "linear RNN + MLP" model of Orvieto
et al. (ICML 2024) in Flax NNX.

LRU (Orvieto et al., 2023, "Resurrecting recurrent neural networks for long sequences", §3):

    lambda = exp(-exp(nu_log) + i exp(theta_log))         (exponential parameterisation, §3.3-3.4)
    x_k    = lambda * x_{k-1} + exp(gamma_log) * (B u_k)  (normalised recurrence, §3.4)
    y_k    = Re(C x_k) + D * u_k                          (readout, §3.2; D diagonal)

with ``gamma = exp(gamma_log)`` initialised to ``sqrt(1 - |lambda|^2)``. The model of Orvieto et al.
(ICML 2024, §2, ``f = g o R o e``) reads the states through a position-wise MLP ``g`` on
``[Re x_k, Im x_k]`` (:class:`MLPHead`, :class:`LRUModel`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import jax
import jax.numpy as jnp
from flax import nnx
from jax.typing import DTypeLike
from jaxtyping import Array, ArrayLike, Complex, Float

from lrnn_core.core.eigenvalues import TWO_PI, lru_eigenvalues, lru_ring_init
from lrnn_core.core.scan import METHODS, linear_scan
from lrnn_core.core.validate import (
    as_inexact,
    check_choice,
    check_finite,
    check_ndim,
    check_real,
    check_shape,
    check_stable,
    inexact_dtype,
    positive_int,
)


def _check_features(name: str, x: ArrayLike, features: int, *, real: bool) -> Array:
    """``x`` as an inexact array of shape ``(..., features)``; ``real=True`` rejects complex."""
    x = as_inexact(name, x)
    if real:
        check_real(name, x)
    check_ndim(name, x, 1)
    check_shape(name, x, (None,) * (x.ndim - 1) + (features,))
    check_finite(name, x)
    return x


class LRU(nnx.Module):
    """Linear Recurrent Unit with ``N`` complex channels on ``M`` input channels.

    Eigenvalues are ring-initialised (``|lambda| = sqrt(U(r_min^2, r_max^2))``, phase
    ``U(0, max_phase)``; defaults are the best initialisation found by Orvieto et al., ICML 2024,
    Fig. 4). ``N`` is the state size, ``M`` the number of input channels. ``B`` (``N x M``)
    and ``C`` (``M x N``) are complex and Glorot-initialised as in the LRU's own code (Orvieto et
    al., 2023, §3.2 and appendix A): the real and imaginary parts of ``B`` are normal with the
    halved variance ``1 / (2 M)`` (so ``E|B_nm|^2 = 1 / M``), those of ``C`` normal with variance
    ``1 / N`` (not halved: the readout takes ``Re(C x)``). ``D`` (``M``), the LRU paper's
    feedthrough (not the MLP widths ``D`` of :class:`MLPHead`), is standard normal.
    ``scan_method`` (one of :data:`lrnn_core.core.scan.METHODS`) is passed to
    :func:`linear_scan`.
    """

    def __init__(
        self,
        N: int,
        M: int,
        *,
        r_min: float = 0.9,
        r_max: float = 0.999,
        max_phase: float = TWO_PI,
        param_dtype: DTypeLike = jnp.float32,
        scan_method: str = "auto",
        rngs: nnx.Rngs,
    ):
        self.N = positive_int("N", N)
        self.M = positive_int("M", M)
        self.scan_method = check_choice("scan_method", scan_method, METHODS)
        param_dtype = inexact_dtype("param_dtype", param_dtype)
        nu_log, theta_log, gamma_log = lru_ring_init(
            rngs.params(), N, r_min, r_max, max_phase, dtype=param_dtype
        )
        self.nu_log = nnx.Param(nu_log)
        self.theta_log = nnx.Param(theta_log)
        self.gamma_log = nnx.Param(gamma_log)
        normal = jax.random.normal
        b_scale = (2 * M) ** -0.5
        c_scale = N**-0.5
        self.B_re = nnx.Param(b_scale * normal(rngs.params(), (N, M), param_dtype))
        self.B_im = nnx.Param(b_scale * normal(rngs.params(), (N, M), param_dtype))
        self.C_re = nnx.Param(c_scale * normal(rngs.params(), (M, N), param_dtype))
        self.C_im = nnx.Param(c_scale * normal(rngs.params(), (M, N), param_dtype))
        self.D = nnx.Param(normal(rngs.params(), (M,), param_dtype))

    def eigenvalues(self) -> jax.Array:
        """The diagonal of ``Lambda``, ``exp(-exp(nu_log) + i exp(theta_log))``, shape ``(N,)``."""
        return lru_eigenvalues(self.nu_log[...], self.theta_log[...])

    def states(self, u: Float[ArrayLike, "*batch L M"]) -> Complex[Array, "*batch L N"]:
        """Hidden states ``x_k = lambda x_{k-1} + exp(gamma_log) B u_k``, ``x_0 = 0``.

        ``u``: real, shape ``(..., L, M)``; returns complex ``(..., L, N)``.
        """
        u = _check_features("u", u, self.M, real=True)
        check_ndim("u", u, 2)
        # |lambda| = exp(-exp(nu_log)) reaches 1 when exp(nu_log) underflows; checked on the
        # modulus, since |exp(i theta)| computed in floating point may round below 1.
        check_stable("LRU eigenvalues", jnp.exp(-jnp.exp(self.nu_log[...])))
        lam = self.eigenvalues()
        return _states(
            lam, self.gamma_log[...], self.B_re[...], self.B_im[...], u, self.scan_method
        )

    def __call__(self, u: Float[ArrayLike, "*batch L M"]) -> Float[Array, "*batch L M"]:
        """Outputs ``y_k = Re(C x_k) + D * u_k``: real, shape ``(..., L, M)``."""
        x = self.states(u)
        return _readout(
            x, self.C_re[...], self.C_im[...], self.D[...], jnp.asarray(u, x.real.dtype)
        )


@partial(jax.jit, static_argnames="scan_method")
def _states(lam, gamma_log, B_re, B_im, u, scan_method: str) -> jax.Array:
    """The normalised recurrence ``x_k = lam x_{k-1} + exp(gamma_log) * (B u_k)`` (LRU §3.4)."""
    B = (B_re + 1j * B_im) * jnp.exp(gamma_log)[:, None]
    return linear_scan(lam, jnp.einsum("...lh,nh->...ln", u, B), method=scan_method)


@jax.jit
def _readout(x, C_re, C_im, D, u) -> jax.Array:
    """``y_k = Re(C x_k) + D * u_k``."""
    return jnp.einsum("...ln,hn->...lh", x, C_re + 1j * C_im).real + D * u


class MLPHead(nnx.Module):
    """Position-wise MLP ``g: R^(2N) -> R^d_out`` on ``[Re x, Im x]`` (Orvieto et al., 2024, §2).

    ``D`` lists the widths of the hidden layers (``()`` gives a linear readout); ``activation``
    follows every hidden layer.
    """

    def __init__(
        self,
        N: int,
        d_out: int,
        *,
        D: Sequence[int] = (64,),
        activation: Callable[[jax.Array], jax.Array] = nnx.relu,
        rngs: nnx.Rngs,
    ):
        self.N = positive_int("N", N)
        sizes = [
            2 * N,
            *(positive_int("D", h) for h in D),
            positive_int("d_out", d_out),
        ]
        self.layers = nnx.List(
            [nnx.Linear(a, b, rngs=rngs) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
        )
        self.activation = activation

    def __call__(self, x: Complex[ArrayLike, "*batch N"]) -> Float[Array, "*batch d_out"]:
        """``x``: complex states ``(..., N)``; returns ``(..., d_out)``."""
        x = as_inexact("x", x)
        if not jnp.iscomplexobj(x):
            raise TypeError(f"x must be complex (the MLP reads [Re x, Im x]), got dtype {x.dtype}")
        return _mlp(self, _check_features("x", x, self.N, real=False))


@nnx.jit
def _mlp(head: MLPHead, x: jax.Array) -> jax.Array:
    """The head's layers on ``[Re x, Im x]``, compiled as one program (faster than op by op)."""
    z = jnp.concatenate([x.real, x.imag], axis=-1)
    for layer in head.layers[:-1]:
        z = head.activation(layer(z))
    return head.layers[-1](z)


class LRUModel(nnx.Module):
    """``f = g o R o e`` (Orvieto et al., ICML 2024, §2): linear encoder, LRU states, MLP head.

    Maps ``(..., L, M)`` to ``(..., L, d_out)`` position by position after the recurrence; read
    ``[..., -1, :]`` for a sequence-to-vector task. ``d_model=None`` feeds the input straight into
    the LRU (the identity encoder of §3.1); an int adds ``nnx.Linear(M, d_model)`` first. ``D``
    lists the MLP head's hidden widths (:class:`MLPHead`). Remaining keywords (``r_min``,
    ``r_max``, ``max_phase``, ``scan_method``) go to :class:`LRU`.
    """

    def __init__(
        self,
        M: int,
        N: int,
        d_out: int,
        *,
        d_model: int | None = None,
        D: Sequence[int] = (64,),
        activation: Callable[[jax.Array], jax.Array] = nnx.relu,
        rngs: nnx.Rngs,
        **lru_kwargs: float | str | DTypeLike,
    ):
        self.M = positive_int("M", M)
        d_model = None if d_model is None else positive_int("d_model", d_model)
        self.encoder = None if d_model is None else nnx.Linear(M, d_model, rngs=rngs)
        self.lru = LRU(N, M if d_model is None else d_model, rngs=rngs, **lru_kwargs)
        self.head = MLPHead(N, d_out, D=D, activation=activation, rngs=rngs)

    def __call__(self, v: Float[ArrayLike, "*batch L M"]) -> Float[Array, "*batch L d_out"]:
        """``v``: real, ``(..., L, M)``; returns ``(..., L, d_out)``."""
        v = _check_features("v", v, self.M, real=True)
        check_ndim("v", v, 2)
        u = v if self.encoder is None else self.encoder(v)
        return self.head(self.lru.states(u))
