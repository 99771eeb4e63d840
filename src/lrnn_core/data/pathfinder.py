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
  path 0; negative image (label 0): one dot on the start of path 0, the other on the start of
  path 1.

Three rules make the label *connectivity* and nothing simpler:

* **no contact**: the pixels of different strokes (a stroke is a path with the dots on it) are at
  Chebyshev distance ``>= clearance`` (4 by default), while consecutive dashes of one path are at
  most 2 apart (a gap of 1.5 px, rounded). So with every stroke thickened by one pixel,
  ``label = 1`` exactly when the two dots lie in one 8-connected component;
* **same dot distance**: a negative image's dot distance ``d = |dot_1 - dot_0|`` is the end-to-end
  distance of an independent path of the same law (drawn and discarded), and path 1 starts at
  ``dot_0 + d (cos phi, sin phi)``, ``phi ~ U[0, 2 pi)``; so ``d`` has the same distribution in
  both classes;
* **same ink**: every image has ``1 + distractors`` paths of the same length and two dots, so the
  number of lit pixels does not depend on the label beyond rasterisation.

Pixels are 1 on a dash or a dot and 0 elsewhere (no anti-aliasing), float64 in ``[0, 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from lrnn_core.core.validate import nonnegative_int, positive_int, real_number


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
    start: np.ndarray | None = None,
    tries: int = 1000,
) -> np.ndarray:
    """A dashed path inside ``[margin, size - 1 - margin]^2``: ``(dashes, 2, 2)`` start/end points.

    Start uniform in the box (or ``start``), heading uniform in ``[0, 2 pi)``; each next dash
    starts ``gap`` further along the heading, which first turns by ``U(-max_turn, max_turn)``.
    Redrawn (up to ``tries`` times, in batches of 32) until every point lies in the box.
    """
    low, high = margin, size - 1 - margin
    batch = 32  # candidates drawn at once; the first that fits is returned
    for _ in range(0, tries, batch):
        heading = rng.uniform(0, 2 * np.pi, size=(batch, 1))
        if start is None:
            point = rng.uniform(low, high, size=(batch, 1, 2))
        else:
            point = np.broadcast_to(np.asarray(start, float), (batch, 1, 2))
        turns = rng.uniform(-max_turn, max_turn, size=(batch, dashes - 1))
        headings = heading + np.concatenate([np.zeros((batch, 1)), np.cumsum(turns, 1)], 1)
        step = np.stack([np.cos(headings), np.sin(headings)], axis=-1)  # (batch, dashes, 2)
        # dash d starts one dash (heading d - 1) and one gap (heading d) after dash d - 1
        moves = dash_length * step[:, :-1] + gap * step[:, 1:]
        starts = point + np.concatenate([np.zeros((batch, 1, 2)), np.cumsum(moves, 1)], 1)
        paths = np.stack([starts, starts + dash_length * step], axis=2)
        fits = np.flatnonzero(
            (paths.min(axis=(1, 2, 3)) >= low) & (paths.max(axis=(1, 2, 3)) <= high)
        )
        if fits.size:
            return paths[fits[0]]
    raise ValueError(f"no path of {dashes} dashes fits a {size} x {size} image in {tries} tries")


def rasterise(image: np.ndarray, path: np.ndarray) -> None:
    """Set to 1 every pixel whose centre is within half a pixel of a dash of ``path`` (in place):
    points sampled every 0.25 px (or closer) along each dash, rounded to the nearest pixel."""
    path = np.asarray(path, float)
    n = int(np.ceil(4 * np.linalg.norm(path[:, 1] - path[:, 0], axis=1).max())) + 1
    t = np.linspace(0, 1, n)[None, :, None]
    pts = np.rint(path[:, :1] + t * (path[:, 1:] - path[:, :1])).astype(int).reshape(-1, 2)
    image[pts[:, 1], pts[:, 0]] = 1.0


def _disc(image: np.ndarray, centre: np.ndarray, radius: float) -> None:
    ys, xs = np.ogrid[: image.shape[0], : image.shape[1]]
    image[(xs - centre[0]) ** 2 + (ys - centre[1]) ** 2 <= radius**2] = 1.0


_TRIES = 100  # draws of one stroke before the whole image is redrawn


def _stroke(size: int, path: np.ndarray | None, dots: list[np.ndarray], radius: float):
    mask = np.zeros((size, size))
    if path is not None:
        rasterise(mask, path)
    for centre in dots:
        _disc(mask, centre, radius)
    return mask > 0


def _image(
    rng: np.random.Generator, label: int, size: int, distractors: int, clearance: int, law: dict
) -> PathfinderSample | None:
    """One image of ``label``, or None when a stroke found no room in ``_TRIES`` draws (the
    caller then redraws the whole image)."""
    radius = law.pop("dot_radius")
    margin = radius + 0.5
    keep_out = np.ones((2 * clearance - 1, 2 * clearance - 1), bool)
    path0 = draw_path(rng, size, margin=margin, **law)
    dots = [path0[0, 0], path0[-1, 1]]
    if not label:
        # The dot distance of a positive: the end-to-end distance of a path of the same law.
        probe = draw_path(rng, size, margin=margin, **law)
        distance = np.linalg.norm(probe[-1, 1] - probe[0, 0])
    paths, strokes = [path0], [_stroke(size, path0, dots[: 2 if label else 1], radius)]
    blocked = ndimage.binary_dilation(strokes[0], structure=keep_out)
    for p in range(distractors):
        for _ in range(_TRIES):
            start = None
            if not (label or p):  # path 1 of a negative starts at the second dot
                phi = rng.uniform(0, 2 * np.pi)
                start = dots[0] + distance * np.array([np.cos(phi), np.sin(phi)])
                if start.min() < margin or start.max() > size - 1 - margin:
                    continue
            try:
                path = draw_path(rng, size, margin=margin, start=start, tries=20, **law)
            except ValueError:
                continue
            stroke = _stroke(size, path, [] if start is None else [start], radius)
            if not np.any(stroke & blocked):
                break
        else:
            return None
        if start is not None:
            dots[1] = start
        paths.append(path)
        strokes.append(stroke)
        blocked |= ndimage.binary_dilation(stroke, structure=keep_out)
    image = np.any(strokes, axis=0).astype(float)
    return PathfinderSample(image, paths, np.array(dots), label)


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
    clearance: int = 4,
    tries: int = 100,
) -> tuple[np.ndarray, np.ndarray, list[PathfinderSample]]:
    """``n`` PathFinder-like images (see the module docstring), labels alternating 1, 0, 1, ...

    Returns ``images`` ``(n, size * size)`` float64 (row by row: the 1024-token sequence at
    ``size = 32``), ``labels`` ``(n,)`` int, and each image's :class:`PathfinderSample`.
    ``distractors >= 1`` (a negative image needs path 1); an image whose strokes find no room
    (no contact closer than ``clearance`` pixels) is redrawn, up to ``tries`` times.
    """
    n = positive_int("n", n)
    seed = nonnegative_int("seed", seed)
    size = positive_int("size", size)
    distractors = positive_int("distractors", distractors)
    clearance = positive_int("clearance", clearance)
    tries = positive_int("tries", tries)
    law = dict(
        dashes=positive_int("dashes", dashes),
        dash_length=real_number("dash_length", dash_length, low=0.5),
        gap=real_number("gap", gap, low=0.0, high=1.5),
        max_turn=real_number("max_turn", max_turn, low=0.0, high=np.pi),
        dot_radius=real_number("dot_radius", dot_radius, low=0.0),
    )
    rng = np.random.default_rng(seed)
    samples = []
    for i in range(n):
        for _ in range(tries):
            sample = _image(rng, 1 - i % 2, size, distractors, clearance, dict(law))
            if sample is not None:
                break
        else:
            raise ValueError(
                f"no image with {1 + distractors} paths at clearance {clearance} fits a "
                f"{size} x {size} image in {tries} tries"
            )
        samples.append(sample)
    images = np.stack([s.image.ravel() for s in samples])
    labels = np.array([s.label for s in samples])
    return images, labels, samples
