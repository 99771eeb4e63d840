"""lrnn_core: the library behind lrnn-book.

Importing it changes no global JAX setting (in particular it does not enable float64).
"""

from lrnn_core.scale import by_scale, current_scale

__all__ = ["by_scale", "current_scale"]
__version__ = "0.1.0"
