"""lrnn_core: the library behind lrnn-book.

Sub-packages mirror the book: ``core`` knows no paper (checks, scans, eigenvalue laws, Vandermonde
tools and the one pseudo-inverse, memory probes, the LRU layer, the one training loop);
``foundations`` holds the foundations chapter's reference loops and figures; ``orvieto``,
``wang_li_li`` and ``wang_xue`` hold what one paper needs; ``data`` reads data sets offline;
``bookkit`` holds the scale setting, widgets, paper-vs-ours tables and the benchmark.

Importing it changes no global JAX setting; in particular it does not enable float64. Code that
needs float64 in JAX runs inside ``with jax.enable_x64(True):`` (the book's one way to ask for it).

Notation, used in every module, docstring and chapter (a paper's own letter is mapped once in
that paper's first chapter, e.g. Wang, Li & Li's hidden width m is our N):

==========  ======================================================================
symbol      meaning
==========  ======================================================================
``L``       sequence length (number of time steps); ``k`` a step, 1 <= k <= L
``N``       state size: eigenvalues of the diagonal recurrence, hidden width of an RNN, width
            of a layer of a stacked SSM
``M``       input channels; ``d_out`` output channels; ``d_model`` width of a linear encoder
            in front of an LRU
``D``       hidden width(s) of an MLP head (the LRU layer's feedthrough keeps its paper's
            name ``LRU.D``); ``P`` basis size
``Ns``      a sequence of sizes is named by the symbol's plural (``Ns``, ``Ds``, ``Ls``)
``u``       input sequence, shape ``(..., L, M)`` or ``(..., L)``
``x``       state sequence, ``x_k = lam * x_{k-1} + B u_k``, shape ``(..., L, N)``
``y``       output sequence
``lam``     diagonal of the recurrence (eigenvalues), shape ``(N,)``
``B, C``    input and readout matrices; ``W`` a dense recurrent weight (continuous time)
``t, dt``   continuous time and its step; ``T`` a continuous horizon
``rho``     memory kernel of a linear functional; ``beta`` a perturbation size
``seed``    a Python int; ``key`` a JAX PRNG key
==========  ======================================================================

Array arguments are annotated with their dimensions in these letters (``jaxtyping``), with
``batch`` for any leading batch dimensions. We write "parameterisation".
"""

from lrnn_core.bookkit.exercises import check
from lrnn_core.bookkit.scale import by_scale, current_scale
from lrnn_core.bookkit.seeds import current_seed, rng_key, run_seed, seeds
from lrnn_core.core.eigenvalues import (
    lru_eigenvalues,
    lru_params,
    lru_ring_init,
    real_init,
    ring_init,
    roots_of_unity,
)
from lrnn_core.core.lru import LRU, LRUModel, MLPHead
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.train import TrainResult, mse_loss, train
from lrnn_core.core.vandermonde import condition_number, reconstruct, singular_values, vandermonde

__all__ = [
    "LRU",
    "LRUModel",
    "MLPHead",
    "TrainResult",
    "by_scale",
    "check",
    "condition_number",
    "current_scale",
    "current_seed",
    "linear_scan",
    "lru_eigenvalues",
    "lru_params",
    "lru_ring_init",
    "mse_loss",
    "real_init",
    "reconstruct",
    "ring_init",
    "rng_key",
    "roots_of_unity",
    "run_seed",
    "seeds",
    "singular_values",
    "train",
    "vandermonde",
]
__version__ = "0.1.0"
