"""The paper-versus-ours table that closes every chapter, and the record of its rows.

Each row names a claim by its id in the reproduction spec (``shared/claims.md``, e.g. ``"Orvieto
Fig 2"``), the paper's value as the paper prints it, ours as the chapter computed it, the scale that
produced ours, whether the paper's claim holds in our run, and the row's status in the reproduction
report (:data:`STATUSES`). :meth:`ClaimTable.save` writes the rows as JSON into :func:`records_dir`,
from which the book's last page, the reproduction report (:mod:`lrnn_core.bookkit.report`),
collects every chapter's rows.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from lrnn_core.bookkit.scale import current_scale
from lrnn_core.bookkit.seeds import current_seed
from lrnn_core.core.validate import check_choice, check_flag, check_text

COLUMNS = ("claim", "paper", "ours", "scale", "holds", "status")
#: A row's status: the claim holds as the paper states it; holds only in a weaker form (a smaller
#: scale, a substitute data set, part of the claim); or does not hold in a faithful run.
STATUSES = ("reproduced", "weaker", "not reproduced")
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
    """One row: ``claim`` id, the paper's value, ours, the scale of ours, whether it holds, and its
    status (one of :data:`STATUSES`)."""

    claim: str
    paper: str
    ours: str
    scale: str
    holds: bool
    status: str


def _cell(text: str) -> str:
    """Escape what would break a GitHub-flavoured Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


class ClaimTable:
    """Rows of one chapter's paper-versus-ours table, shown as Markdown in a notebook.

    >>> table = ClaimTable("orvieto/memorisation")
    >>> table.add("Orvieto Prop 1", paper="proof only", ours="max error 1e-14", holds=True)
    """

    def __init__(self, chapter: str) -> None:
        self.chapter = check_text("chapter", chapter)
        self.rows: list[ClaimRow] = []

    def add(
        self, claim: str, *, paper: str, ours: str, holds: bool, status: str | None = None
    ) -> ClaimRow:
        """Append a row; ``holds`` must be the bool the chapter asserted for this claim.

        ``status`` defaults to ``"reproduced"`` if ``holds`` else ``"not reproduced"``; pass
        ``status="weaker"`` for a claim that holds only in a weaker form (say which in ``ours``).
        """
        holds = check_flag("holds", holds)
        default = "reproduced" if holds else "not reproduced"
        status = default if status is None else check_choice("status", status, STATUSES)
        if (status == "not reproduced") == holds:
            raise ValueError(f"holds={holds} contradicts status={status!r}")
        row = ClaimRow(
            claim=check_text("claim", claim),
            paper=check_text("paper", paper),
            ours=check_text("ours", ours),
            scale=current_scale(),
            holds=holds,
            status=status,
        )
        self.rows.append(row)
        return row

    def markdown(self) -> str:
        """The table in GitHub-flavoured Markdown, one line per row."""
        if not self.rows:
            raise ValueError(f"ClaimTable {self.chapter!r} has no rows to show")
        head = "| claim | paper (as printed) | ours | scale | holds |\n|---|---|---|---|---|\n"
        body = "\n".join(
            f"| {_cell(r.claim)} | {_cell(r.paper)} | {_cell(r.ours)} | {r.scale} | "
            f"{'yes' if r.holds else 'no'} |"
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
