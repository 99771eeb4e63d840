"""Write the library reference, ``book/reference/<package>.md``, from the package tree.

``python scripts/reference_pages.py`` rewrites each page: its title (kept from the page), the
package's docstring and an autosummary of its modules, then one section per module with its
``automodule`` block. ``--check`` exits non-zero if a page differs from what it would write
(``tests/test_reference_pages.py`` checks the same through the modules each page lists).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lrnn_core"
PAGES = ROOT / "book" / "reference"


def modules(package: str) -> list[str]:
    """The modules of ``lrnn_core.<package>``, sorted, without ``__init__``."""
    return sorted(p.stem for p in (SRC / package).glob("*.py") if p.stem != "__init__")


def page(package: str, title: str) -> str:
    """The reference page of ``lrnn_core.<package>`` under the heading ``title``."""
    names = modules(package)
    head = [f"# {title}", "", "```{eval-rst}", f".. automodule:: lrnn_core.{package}", ""]
    head += [".. autosummary::", "", *(f"   {m}" for m in names), "```", ""]
    for m in names:
        head += [f"## `{m}`", "", "```{eval-rst}", f".. automodule:: lrnn_core.{package}.{m}"]
        head += ["   :members:", "```", ""]
    return "\n".join(head).rstrip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args()
    stale = []
    for path in sorted(PAGES.glob("*.md")):
        title = path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")
        text = page(path.stem, title)
        if path.read_text(encoding="utf-8") != text:
            stale.append(path.name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    print(("stale: " if args.check else "rewritten: ") + (", ".join(stale) or "none"))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
