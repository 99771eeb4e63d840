"""lrnn_core: the library behind lrnn-book.

Importing it changes no global JAX setting (in particular it does not enable float64).
"""

from lrnn_core.eigenvalues import real_init, ring_init, roots_of_unity
from lrnn_core.scale import by_scale, current_scale
from lrnn_core.scan import linear_scan

__all__ = ["by_scale", "current_scale", "linear_scan", "real_init", "ring_init", "roots_of_unity"]
__version__ = "0.1.0"

from lrnn_core.eigenvalues import lru_eigenvalues, lru_params, lru_ring_init  # noqa: E402
from lrnn_core.lru import LRU, LRUModel, MLPHead  # noqa: E402
from lrnn_core.train import TrainResult, mse_loss, train  # noqa: E402
from lrnn_core.vandermonde import condition_number, reconstruct, singular_values, vandermonde  # noqa: E402

__all__ += ["lru_eigenvalues", "lru_params", "lru_ring_init", "LRU", "LRUModel", "MLPHead"]
__all__ += ["TrainResult", "mse_loss", "train"]
__all__ += ["condition_number", "reconstruct", "singular_values", "vandermonde"]
