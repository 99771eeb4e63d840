"""PathFinder-like images, generated offline (a substitute for the Long Range Arena's PathFinder).

The PathFinder task (Linsley et al., NeurIPS 2018; Tay et al., ICLR 2021, the LRA's 32 x 32
version, 1024 tokens) shows two white dots and several curved *dashed* paths on a black
background; the label says whether one path connects the two dots. LRA's images are not
installable offline, so :func:`pathfinder_images` draws images of the same construction:

* every path is a chain of ``dashes`` straight dashes of length ``dash_length`` separated by gaps
  of ``gap`` pixels; its heading turns by at most ``max_turn`` (uniform) from one dash to the next,
  and a path that would leave the image is redrawn;
* path 0 is the target path; paths 1, ... are distractors of the same law;
* positive image (label 1): the dots (discs of radius ``dot_radius``) sit on the two ends of
  path 0; negative image (label 0): one dot on an end of path 0, the other on an end of path 1.

Pixels are 1 on a dash or a dot and 0 elsewhere (no anti-aliasing), float64 in ``[0, 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lrnn_core.core.validate import nonnegative_int, positive_int, real_number

__all__ = ["PathfinderSample", "draw_path", "pathfinder_images", "rasterise"]


@dataclass(frozen=True)
class PathfinderSample:
    """One image and its geometry: ``paths[p]`` ``(dashes, 2, 2)`` holds dash ``d``'s start and
    end points ``(x, y)`` of path ``p``; ``dots`` ``(2, 2)`` the two dot centres; ``label`` 1 if
    path 0 connects the dots."""

    image: np.ndarray
    paths: list[np.ndarray]
    dots: np.ndarray
    label: int


def draw_path(
    rng: np.random.Generator,
    size: int,
    *,
    dashes: int,
    dash_length: float,
    gap: float,
    max_turn: float,
    margin: float,
    tries: int = 1000,
) -> np.ndarray:
    """A dashed path inside ``[margin, size - 1 - margin]^2``: ``(dashes, 2, 2)`` start/end points.

    Start uniform in the box, heading uniform in ``[0, 2 pi)``; each next dash starts ``gap``
    further along the heading, which first turns by ``U(-max_turn, max_turn)``. Redrawn (up to
    ``tries`` times) until every point lies in the box.
    """
    low, high = margin, size - 1 - margin
    for _ in range(tries):
        heading = rng.uniform(0, 2 * np.pi)
        point = rng.uniform(low, high, size=2)
        segments = []
        for d in range(dashes):
            if d:
                heading += rng.uniform(-max_turn, max_turn)
                point = point + gap * np.array([np.cos(heading), np.sin(heading)])
            end = point + dash_length * np.array([np.cos(heading), np.sin(heading)])
            segments.append((point, end))
            point = end
        path = np.array(segments)
        if path.min() >= low and path.max() <= high:
            return path
    raise ValueError(f"no path of {dashes} dashes fits a {size} x {size} image in {tries} tries")


def rasterise(image: np.ndarray, path: np.ndarray) -> None:
    """Set to 1 every pixel whose centre is within half a pixel of a dash of ``path`` (in place):
    points sampled every 0.25 px along each dash, rounded to the nearest pixel."""
    for start, end in path:
        n = int(np.ceil(4 * np.linalg.norm(end - start))) + 1
        pts = np.rint(start + np.linspace(0, 1, n)[:, None] * (end - start)).astype(int)
        image[pts[:, 1], pts[:, 0]] = 1.0


def _disc(image: np.ndarray, centre: np.ndarray, radius: float) -> None:
    ys, xs = np.mgrid[: image.shape[0], : image.shape[1]]
    image[(xs - centre[0]) ** 2 + (ys - centre[1]) ** 2 <= radius**2] = 1.0


def pathfinder_images(
    n: int,
    *,
    seed: int = 0,
    size: int = 32,
    distractors: int = 2,
    dashes: int = 6,
    dash_length: float = 2.0,
    gap: float = 1.5,
    max_turn: float = np.pi / 6,
    dot_radius: float = 1.5,
) -> tuple[np.ndarray, np.ndarray, list[PathfinderSample]]:
    """``n`` PathFinder-like images (see the module docstring), labels alternating 1, 0, 1, ...

    Returns ``images`` ``(n, size * size)`` float64 (row by row: the 1024-token sequence at
    ``size = 32``), ``labels`` ``(n,)`` int, and each image's :class:`PathfinderSample`.
    ``distractors >= 1`` (a negative image needs path 1).
    """
    n = positive_int("n", n)
    seed = nonnegative_int("seed", seed)
    size = positive_int("size", size)
    distractors = positive_int("distractors", distractors)
    dashes = positive_int("dashes", dashes)
    dash_length = real_number("dash_length", dash_length, low=0.5)
    gap = real_number("gap", gap, low=0.0)
    max_turn = real_number("max_turn", max_turn, low=0.0, high=np.pi)
    dot_radius = real_number("dot_radius", dot_radius, low=0.0)
    rng = np.random.default_rng(seed)
    margin = dot_radius + 0.5
    images, samples = np.zeros((n, size, size)), []
    for i in range(n):
        label = 1 - i % 2
        paths = [
            draw_path(
                rng,
                size,
                dashes=dashes,
                dash_length=dash_length,
                gap=gap,
                max_turn=max_turn,
                margin=margin,
            )
            for _ in range(1 + distractors)
        ]
        for path in paths:
            rasterise(images[i], path)
        ends = [(p[0, 0], p[-1, 1]) for p in paths]
        dots = np.array(ends[0] if label else (ends[0][0], ends[1][int(rng.integers(2))]))
        for centre in dots:
            _disc(images[i], centre, dot_radius)
        samples.append(PathfinderSample(images[i].copy(), paths, dots, label))
    labels = np.array([s.label for s in samples])
    return images.reshape(n, size * size), labels, samples
