"""The paper-versus-ours table that closes every chapter, and the record of its rows.

Each row names a claim by its id in the reproduction spec (``shared/claims.md``, e.g. ``"Orvieto
Fig 2"``), the paper's value as the paper prints it, ours as the chapter computed it, the scale that
produced ours, and whether the chapter's assert on that row holds. :meth:`ClaimTable.save` writes
the rows as JSON so that a later page can collect every chapter's rows into one report.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from lrnn_core.bookkit.scale import current_scale
from lrnn_core.core.validate import check_flag, check_text

COLUMNS = ("claim", "paper", "ours", "scale", "holds")


@dataclass(frozen=True)
class ClaimRow:
    """One row: ``claim`` id, the paper's value, ours, the scale of ours, and whether it holds."""

    claim: str
    paper: str
    ours: str
    scale: str
    holds: bool


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

    def add(self, claim: str, *, paper: str, ours: str, holds: bool) -> ClaimRow:
        """Append a row; ``holds`` must be the bool the chapter asserted for this claim."""
        row = ClaimRow(
            claim=check_text("claim", claim),
            paper=check_text("paper", paper),
            ours=check_text("ours", ours),
            scale=current_scale(),
            holds=check_flag("holds", holds),
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

    def save(self, directory: str | Path) -> Path:
        """Write the rows to ``directory/<chapter with / as __>.json`` and return that path."""
        path = Path(directory) / (self.chapter.replace("/", "__") + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"chapter": self.chapter, "rows": [asdict(r) for r in self.rows]}
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False))
        return path
