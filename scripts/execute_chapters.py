"""Executes the book's chapters into Jupyter Book's execution cache, several at a time.

Called by ``scripts/build.sh`` before ``jupyter-book build``. Jupyter Book 1 (MyST-NB's ``cache``
mode) executes the chapters one after the other as Sphinx reads them; the chapters are independent
(each writes only its own claim record), so this runs them on a pool of ``--workers`` processes
(default: the machine's CPU count), each with the build's timeout (``_config.yml``), and stores
each executed notebook in ``_build/.jupyter_cache``, keyed as MyST-NB keys it (the chapter read by
MyST-NB's own reader). The build then finds every chapter in the cache and executes only the rest:

- pages that declare ``execution_mode: force`` (the reproduction report, read after every chapter);
- ``TIMED_ALONE``: the performance appendix times the scans, so it runs while nothing else does.

A chapter already in the cache with the same code is not executed again. The exit status is
non-zero if a chapter raised (its traceback is printed); the build would execute it again and fail.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

import yaml
from jupyter_cache import get_cache
from jupyter_cache.cache.db import NbProjectRecord
from jupyter_cache.executors.basic import ExecutionWorkerLocalMProc, ProcessData

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "_build" / ".jupyter_cache"
READER = {"name": "myst_nb_md", "type": "plugin"}
TIMED_ALONE = {"book/appendices/performance"}
# Dispatched first, longest first (their book-scale run times on the 2-core machine, two at a time,
# measured at f166826: 525, 486, 304, 293, 253 and 248 s; the others take 25-115 s): two workers
# that take the longest chapters first finish close together. Only the order changes, not what runs.
LONGEST_FIRST = (
    "book/wang-li-li/stable-approximation",
    "book/orvieto-universality/ode-flows",
    "book/orvieto-universality/learned-reconstruction",
    "book/orvieto/conditioning",
    "book/wang-li-li/reparameterisation",
    "book/wang-xue/universality",
)


def toc_files(toc: Path) -> list[str]:
    """The pages of ``_toc.yml`` in reading order (paths without suffix)."""
    files: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(toc.read_text()))
    return files


def executes_from_cache(page: Path) -> bool:
    """Whether the build takes ``page`` from the cache: it has code cells and is not forced."""
    text = page.read_text()
    if "```{code-cell}" not in text:
        return False
    front = yaml.safe_load(text.split("---", 2)[1]) if text.startswith("---") else {}
    return (front.get("mystnb") or {}).get("execution_mode", "cache") == "cache"


def chapters() -> list[Path]:
    """The pages to execute here: :data:`LONGEST_FIRST`, then the rest in the order of the table
    of contents."""
    names = [name for name in toc_files(ROOT / "_toc.yml") if name not in TIMED_ALONE]
    names.sort(key=lambda n: LONGEST_FIRST.index(n) if n in LONGEST_FIRST else len(LONGEST_FIRST))
    pages = [ROOT / f"{name}.md" for name in names]
    return [page for page in pages if page.is_file() and executes_from_cache(page)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    timeout = yaml.safe_load((ROOT / "_config.yml").read_text())["execute"]["timeout"]

    if args.workers > 1:
        # One BLAS thread per chapter, as scripts/test.sh runs them: more BLAS threads than cores
        # wait on each other (a build that left them at the default stalled in the SVD chapters).
        os.environ.setdefault("OMP_NUM_THREADS", "1")
    cache = get_cache(str(CACHE))
    todo = []
    for page in chapters():
        record = cache.add_nb_to_project(str(page), read_data=READER)
        try:
            cache.match_cache_notebook(cache.get_project_notebook(record.pk).nb)
        except KeyError:
            NbProjectRecord.remove_tracebacks([record.pk], cache.db)
            todo.append(ProcessData(record.pk, record.uri, cache, timeout, False))
    print(f"Executing {len(todo)} chapter(s) on {args.workers} worker(s)", flush=True)
    start = time.perf_counter()
    failed = []
    # chunksize=1: a worker takes the next chapter as soon as it is free.
    with multiprocessing.Pool(args.workers) as pool:
        for status, uri in pool.imap_unordered(ExecutionWorkerLocalMProc(), todo, chunksize=1):
            took = time.perf_counter() - start
            print(f"[{took:6.0f} s] {'executed' if status == 0 else 'FAILED'}: {uri}", flush=True)
            if status != 0:
                failed.append(uri)
    for uri in failed:
        print(f"\n{uri} raised:\n{cache.get_project_record(uri).traceback}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
