"""The paper-versus-ours table that closes every chapter, and the record of its rows.

Each row names a claim by its id in the reproduction spec (``shared/claims.md``, e.g. ``"Orvieto
Fig 2"``), the paper's value as the paper prints it, ours as the chapter computed it, the scale that
produced ours, whether the paper's claim holds in our run, and the row's status in the reproduction
report (:data:`STATUSES`). Two more kinds of evidence travel with a row:

- a *trained* row carries the model's test ``error``, the ``baselines`` it must beat on the same
  test set (:data:`BASELINES`: the best predictor that ignores the input, and the best linear map)
  and the ``margin`` by which it must beat the better of them, fixed in the chapter before the run;
  such a row cannot be ``"reproduced"`` unless ``error × margin ≤ min(baselines)``
  (:func:`lrnn_core.core.verdicts.beats`);
- every ``"reproduced"`` or ``"weaker"`` row names its negative ``control``: an object without the
  claimed property (a power-law memory, an identity activation, a linear filter, an input-ignoring
  model) run through the same check, and ``control_rejected``, the boolean the chapter asserted
  about it; the row's control text is generated from that boolean.

A chapter states a claim once, in one call, with its measured numbers as named values::

    table.add("Orvieto Fig 2", paper="7.8e9 at r_min = 0 -> 2.8 at 0.999",
              measured={"median norm, r_min=0": med_0, "median norm, r_min=0.999": med_999},
              holds=holds, control="real eigenvalues", control_rejected=control_rejected)

The line it prints under the figure, the chapter's table row and the reproduction report are all
generated from that record by one formatter (:func:`fmt`, three significant digits).

:meth:`ClaimTable.add` writes the rows as JSON into :func:`records_dir` each time a row is added
(so a later failing assert still leaves the row in the report), from which the book's last page,
the reproduction report (:mod:`lrnn_core.bookkit.report`), collects every chapter's rows.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lrnn_core.bookkit.scale import current_scale
from lrnn_core.bookkit.seeds import current_seed
from lrnn_core.core.validate import check_choice, check_flag, check_text, check_type, real_number
from lrnn_core.core.verdicts import beats, times_below

COLUMNS = ("claim", "paper", "ours", "scale", "holds", "status")
#: A row's status: the claim holds as the paper states it; holds only in a weaker form (a smaller
#: scale, a substitute data set, part of the claim); or does not hold in a faithful run.
STATUSES = ("reproduced", "weaker", "not reproduced")
#: The baselines every trained row states: the best predictor that ignores the input (the mean
#: training trajectory or image) and the best linear map of the input (a least-squares causal
#: filter, or the same recurrence with a linear readout solved by least squares).
BASELINES = ("ignores input", "linear")
#: The environment variable that overrides :func:`records_dir`.
RECORDS_ENV = "LRNN_RECORDS_DIR"


def records_dir() -> Path:
    """The folder where chapters save their rows, created if missing.

    ``$LRNN_RECORDS_DIR`` if set; else ``<book>/_build/claims/<scale>-seed<LRNN_SEED>``, where
    ``<book>`` is the nearest folder above the working directory that holds ``_toc.yml`` (a chapter
    runs in its own folder), or the working directory outside the book (e.g. in Colab). One folder
    per scale and seed, so that a test run at ``ci`` does not overwrite the book's ``book`` rows.
    """
    configured = os.environ.get(RECORDS_ENV)
    if configured:
        path = Path(configured)
    else:
        here = Path.cwd().resolve()
        book = next((p for p in (here, *here.parents) if (p / "_toc.yml").is_file()), here)
        path = book / "_build" / "claims" / f"{current_scale()}-seed{current_seed()}"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class ClaimRow:
    """One row: ``claim`` id, the paper's value, ours, the scale of ours, whether it holds, its
    status (one of :data:`STATUSES`); for a trained row its test ``error``, ``baselines`` (name ->
    error on the same test set) and required ``margin``; and its ``negative_control``."""

    claim: str
    paper: str
    ours: str
    scale: str
    holds: bool
    status: str
    error: float | None = None
    baselines: dict[str, float] | None = field(default=None, hash=False)
    margin: float | None = None
    negative_control: str | None = None
    control_rejected: bool | None = None
    measured: dict[str, object] | None = field(default=None, hash=False)

    def line(self) -> str:
        """The row as one printed line: claim, status, ours (with the trained summary) and the
        control's outcome, all from the record."""
        control = "; control: " + self.negative_control if self.negative_control else ""
        return f"{self.claim}: {self.status}. {_ours(self)}{control}"

    @property
    def below_baselines(self) -> float | None:
        """How many times the error sits below the better baseline (``min(baselines) / error``,
        :func:`~lrnn_core.core.verdicts.times_below`); None for a row that is not trained."""
        if self.error is None or self.baselines is None:
            return None
        return times_below(self.error, self.baselines)


def _plain(value: object) -> object:
    """``value`` as a JSON value: NumPy scalars and arrays become Python numbers and lists."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raise TypeError(f"a measured value must be a number, a bool, a str or a list, got {value!r}")


def fmt(value: object) -> str:
    """The one way a measured value is printed: three significant digits (``7.8e9``, ``0.00312``,
    ``42.5``), whole numbers as they are, ``yes``/``no`` for booleans, lists in brackets."""
    value = _plain(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e6:
            return str(int(value))
        text = f"{value:.3g}"
        return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m[1] == "-" else "") + m[2], text)
    if isinstance(value, list):
        shown = ", ".join(fmt(v) for v in value[:8])
        return f"[{shown}{', …' if len(value) > 8 else ''}]"
    return str(value)


def measured_text(measured: Mapping[str, object]) -> str:
    """``"name value; name value"``: a record's measured numbers, each by :func:`fmt`."""
    return "; ".join(f"{check_text('measured name', k)} {fmt(v)}" for k, v in measured.items())


def _cell(text: str) -> str:
    """Escape what would break a GitHub-flavoured Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _trained(
    error: object, baselines: object, margin: object
) -> tuple[float | None, dict[str, float] | None, float | None]:
    """Check the trained-row fields together: all three or none."""
    given = (error is not None, baselines is not None, margin is not None)
    if not any(given):
        return None, None, None
    if not all(given):
        raise ValueError(
            "a trained row needs error, baselines and margin together "
            f"(got error={error!r}, baselines={baselines!r}, margin={margin!r})"
        )
    error = real_number("error", error, low=0.0)
    check_type("baselines", baselines, Mapping, what="a dict name -> error")
    missing = [k for k in BASELINES if k not in baselines]
    if missing:
        raise ValueError(f"baselines must name {BASELINES}; missing {missing}")
    baselines = {
        check_text("baseline name", k): real_number(f"baselines[{k!r}]", v, low=0.0)
        for k, v in baselines.items()
    }
    margin = real_number("margin", margin, low=1.0)
    return error, baselines, margin


class ClaimTable:
    """Rows of one chapter's paper-versus-ours table, shown as Markdown in a notebook.

    >>> table = ClaimTable("orvieto/memorisation")
    >>> table.add("Orvieto Prop 1", paper="proof only", ours="max error 1e-14", holds=True,
    ...           negative_control="nodes repeated: V^+ V != I, rejected")
    """

    def __init__(self, chapter: str, *, autosave: bool = True) -> None:
        self.chapter = check_text("chapter", chapter)
        self.autosave = check_flag("autosave", autosave)
        self.rows: list[ClaimRow] = []

    def add(
        self,
        claim: str,
        *,
        paper: str,
        holds: bool,
        measured: Mapping[str, object] | None = None,
        note: str | None = None,
        status: str | None = None,
        control: str | None = None,
        control_rejected: bool | None = None,
        error: float | None = None,
        baselines: Mapping[str, float] | None = None,
        margin: float | None = None,
        show: bool = True,
    ) -> ClaimRow:
        """Append a row, save the table (unless ``autosave=False``) and print the row's line
        (unless ``show=False``); ``holds`` must be the bool the chapter asserted for this claim.

        What we found is ``measured`` (name -> value, printed by :func:`fmt`), after an optional
        short ``note`` in words (e.g. which weaker form holds). The negative control is
        ``control`` (what was run through the same check) with ``control_rejected``, the bool the
        chapter asserted about it; the row's control text is generated from the two.

        ``status`` defaults to ``"reproduced"`` if ``holds`` else ``"not reproduced"``; pass
        ``status="weaker"`` for a claim that holds only in a weaker form (say which in ``note``).
        A trained row passes ``error``, ``baselines`` (with the keys of :data:`BASELINES`) and
        ``margin``; it is refused as ``"reproduced"`` unless ``error * margin <= min(baselines)``.
        A ``"reproduced"`` or ``"weaker"`` row is refused without a control.
        """
        holds = check_flag("holds", holds)
        default = "reproduced" if holds else "not reproduced"
        status = default if status is None else check_choice("status", status, STATUSES)
        if (status == "not reproduced") == holds:
            raise ValueError(f"holds={holds} contradicts status={status!r}")
        error, baselines, margin = _trained(error, baselines, margin)
        if status == "reproduced" and error is not None and not beats(error, baselines, margin):
            raise ValueError(
                f"{claim!r} cannot be 'reproduced': error {error:.3g} is not {margin:g}x below "
                f"the better baseline ({baselines})"
            )
        parts = [check_text("note", note)] if note is not None else []
        if measured is not None:
            if not isinstance(measured, Mapping) or not measured:
                raise ValueError(
                    f"measured must be a non-empty dict name -> value, got {measured!r}"
                )
            measured = {check_text("measured name", k): _plain(v) for k, v in measured.items()}
            parts.append(measured_text(measured))
        if not parts:
            raise ValueError(f"{claim!r} states nothing of ours: pass measured (or a note)")
        negative_control = None
        if control is not None:
            control_rejected = check_flag("control_rejected", control_rejected)
            verdict = "rejected" if control_rejected else "NOT rejected"
            negative_control = f"{check_text('control', control)}: {verdict}"
        elif control_rejected is not None:
            raise ValueError("control_rejected needs the control it is about (control=...)")
        if negative_control is None and status != "not reproduced":
            raise ValueError(
                f"{claim!r} is {status!r} but names no control (an object without the "
                "property that the same check rejects, or why none is meaningful)"
            )
        row = ClaimRow(
            claim=check_text("claim", claim),
            paper=check_text("paper", paper),
            ours="; ".join(parts),
            scale=current_scale(),
            holds=holds,
            status=status,
            error=error,
            baselines=baselines,
            margin=margin,
            negative_control=negative_control,
            control_rejected=control_rejected,
            measured=measured,
        )
        self.rows.append(row)
        if self.autosave:
            self.save()
        if check_flag("show", show):
            print(row.line())
        return row

    def markdown(self) -> str:
        """The table in GitHub-flavoured Markdown, one line per row: status first, then the
        claim, the paper's value, ours (with "×k below the better baseline" for a trained row),
        the negative control and the scale."""
        if not self.rows:
            raise ValueError(f"ClaimTable {self.chapter!r} has no rows to show")
        head = (
            "| status | claim | paper (as printed) | ours | negative control | scale |\n"
            "|---|---|---|---|---|---|\n"
        )
        body = "\n".join(
            f"| {r.status} | {_cell(r.claim)} | {_cell(r.paper)} | {_cell(_ours(r))} | "
            f"{_cell(r.negative_control or '—')} | {r.scale} |"
            for r in self.rows
        )
        return head + body

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def save(self, directory: str | Path | None = None) -> Path:
        """Write the rows to ``directory/<chapter with / as __>.json`` and return that path.

        ``directory`` defaults to :func:`records_dir`, where the reproduction report reads them.
        """
        directory = records_dir() if directory is None else directory
        path = Path(directory) / (self.chapter.replace("/", "__") + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"chapter": self.chapter, "rows": [asdict(r) for r in self.rows]}
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False))
        return path


def _factor(x: float, extra: int = 0) -> str:
    """A ratio as the report prints it: whole numbers from 10 up, two significant digits below
    (``extra`` more digits)."""
    return f"{x:.{extra}f}" if x >= 10 else f"{x:.{2 + extra}g}"


def _factors(factor: float, margin: float) -> tuple[str, str]:
    """``factor`` and ``margin`` printed with the fewest digits that tell them apart (a factor just
    under its margin must not read as equal to it)."""
    for extra in range(6):
        a, b = _factor(factor, extra), _factor(margin, extra)
        if a != b or factor == margin:
            break
    return a, b


def trained_summary(row: ClaimRow) -> str:
    """For a trained row, its test error beside its baselines and how many times it sits below
    the better one, against the margin its chapter fixed, e.g.
    ``"error 0.00031; ignores input 0.062, linear 0.0075: ×24 below the better baseline (needs
    ×21)"``; an error above the better baseline reads ``"×2 above the better baseline (needs ×21
    below)"``. ``""`` for a row that is not trained."""
    factor = row.below_baselines
    if factor is None:
        return ""
    bases = ", ".join(f"{name} {value:.2g}" for name, value in row.baselines.items())
    if math.isinf(factor):
        verdict = "below every baseline (error 0)"
    elif factor >= 1:
        have, need = _factors(factor, row.margin)
        verdict = f"×{have} below the better baseline (needs ×{need})"
    else:
        have, need = _factor(1 / factor), _factor(row.margin)
        verdict = f"×{have} above the better baseline (needs ×{need} below)"
    return f"error {row.error:.2g}; {bases}: {verdict}"


def _ours(row: ClaimRow) -> str:
    """Ours, with a trained row's :func:`trained_summary` in brackets."""
    summary = trained_summary(row)
    return f"{row.ours} [{summary}]" if summary else row.ours
