"""The book's own Sphinx extension (loaded from ``_config.yml``, ``sphinx: local_extensions``).

1. The reproduction report (``book/report.md``) collects the records that the chapters write when
   they execute, so it is read last and on every build: Sphinx reads pages in sorted order
   (``book/report`` would come before ``book/wang-li-li/...``) and skips unchanged pages.
2. The Colab launch button opens ``notebooks/<page>.ipynb`` (scripts/chapters_to_notebooks.py),
   not the ``.md`` source, which Colab cannot open; its label says "Open in Colab". A chapter with
   exercises gets a second button, "Student notebook in Colab": ``notebooks/student/<page>.ipynb``,
   the chapter without its solutions, each code exercise a stub.
3. Each entry of the library reference (``book/reference/``) ends with links to the chapters that
   import it (``from lrnn_core... import name`` in a code cell); its pages are read on every build.
4. Inline code in the chapters' prose that names a documented function or class of the library
   (``linear_scan``, ``linear_scan()`` or ``lrnn_core.core.scan.linear_scan``) links to its entry;
   a short name links only if one object of the library has it.
5. Every page loads each script once. Sphinx 7 (pinned by Jupyter Book 1) writes an inline script
   that an extension adds after the builder started (``app.add_js_file(None, body=...)``) twice:
   the builder stores it with the file name ``None``, and again with ``""`` when it prepares the
   pages, and ``None != ""`` defeats its check for duplicates (fixed upstream in Sphinx 8.2,
   sphinx-doc/sphinx#13402). sphinx-thebe's ``const THEBE_JS_URL = ...`` then throws "Identifier
   'THEBE_JS_URL' has already been declared" on every page; sphinx-togglebutton's
   ``var togglebuttonSelector`` is written twice too.
6. A class whose metaclass defines ``__call__`` (Flax NNX modules, ipywidgets) is shown with the
   signature of its ``__init__`` (``LRU(N, M, *, r_min=0.9, ...)``): autodoc reads the metaclass's
   ``__call__`` first, and would show ``(*args, **kwargs)``.
7. Every node of a page belongs to that page. MyST parses an ``{eval-rst}`` block (the library
   reference's autodoc) into a scratch document that shares the page's settings and moves the
   top-level nodes into the page; the nodes below them still name the scratch document, whose
   settings hold the build environment. Sphinx drops the environment from the page's own settings
   before it pickles the page, not from the scratch document's, so each reference page was pickled
   with the whole environment, every chapter's widget state included (8-10 MB a page, read back
   from disk for every cross-reference to it and every toctree).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from collections import defaultdict
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging

from lrnn_core.bookkit.report import code_cells

LOGGER = logging.getLogger(__name__)

REPORT = "book/report"
TEACHING = "book/teaching"  # reads this checkout's files, as the report does: no notebook
REFERENCE = "book/reference/"
# Written by scripts/chapters_to_notebooks.py, relative to the repository root.
NOTEBOOKS = "notebooks"
STUDENT = "student"


def _read_every_time(app, env, added, changed, removed) -> list[str]:
    """The report and the library reference (its "Used in" links) are read on every build."""
    return sorted(d for d in env.found_docs if d == REPORT or d.startswith(REFERENCE))


def _read_report_last(app, env, docnames: list[str]) -> None:
    if REPORT in docnames:
        docnames.remove(REPORT)
        docnames.append(REPORT)


def _colab_opens_the_notebook(app, pagename, templatename, context, doctree) -> None:
    branch = app.config.html_theme_options.get("repository_branch") or "main"
    folder = Path(app.confdir) / NOTEBOOKS
    notebook = folder / f"{pagename}.ipynb"
    for group in list(context.get("header_buttons", [])):
        if group.get("label") != "launch-buttons":
            continue
        # The report and the teaching page read this checkout's files: nothing to run in Colab. A
        # book built outside the repository (a test's throwaway book) has no notebooks/ folder.
        if pagename in (REPORT, TEACHING) or not folder.is_dir():
            group["buttons"] = [b for b in group["buttons"] if b.get("text") != "Colab"]
            if not group["buttons"]:
                context["header_buttons"].remove(group)
        for button in group["buttons"]:
            if button.get("text") != "Colab":
                continue
            if not notebook.is_file():
                LOGGER.warning(
                    f"{notebook} is missing; write it with "
                    "`python scripts/chapters_to_notebooks.py notebooks`",
                    location=pagename,
                )
            prefix, _, _ = button["url"].partition(f"/blob/{branch}/")
            button["url"] = f"{prefix}/blob/{branch}/{NOTEBOOKS}/{pagename}.ipynb"
            button["text"] = "Open in Colab"
            if (folder / STUDENT / f"{pagename}.ipynb").is_file():
                student = f"{prefix}/blob/{branch}/{NOTEBOOKS}/{STUDENT}/{pagename}.ipynb"
                tooltip = "The chapter without its solutions, each code exercise a stub"
                extra = {**button, "url": student, "text": "Student notebook in Colab"}
                group["buttons"].append({**extra, "tooltip": tooltip})
                break


def _script_key(script) -> tuple:
    """What makes two of Sphinx's ``_JavaScript`` entries the same script: file (``None`` and
    ``""`` both mean an inline script), priority and attributes (the inline body among them)."""
    return (script.filename or "", script.priority, tuple(sorted(script.attributes.items())))


def _each_script_once(app, pagename, templatename, context, doctree) -> None:
    """Drop the second copy of any script of the page (in place: Sphinx restores the list of
    scripts before the next page)."""
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen = set()
    unique = []
    for script in scripts:
        key = _script_key(script) if hasattr(script, "attributes") else (str(script),)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def _imported_names(text: str) -> set[tuple[str, str]]:
    """``(module, name)`` of every ``from lrnn_core... import name`` in a chapter's code cells."""
    found = set()
    for code in code_cells(text):
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lrnn_core"):
                found.update((node.module, alias.name) for alias in node.names)
    return found


def _index_library(app) -> None:
    """``app.env.lrnn_used_in``: qualified name of a library object -> the chapters importing it;
    ``app.env.lrnn_objects``: see :func:`_documented_objects`. Recomputed on every build."""
    used_in = defaultdict(set)
    book = Path(app.srcdir) / "book"
    for path in sorted(book.rglob("*.md")):
        docname = path.relative_to(app.srcdir).with_suffix("").as_posix()
        for module, name in _imported_names(path.read_text(encoding="utf-8")):
            obj = getattr(importlib.import_module(module), name, None)
            if hasattr(obj, "__module__") and hasattr(obj, "__qualname__"):
                used_in[f"{obj.__module__}.{obj.__qualname__}"].add(docname)
    app.env.lrnn_used_in = {name: sorted(docs) for name, docs in used_in.items()}
    app.env.lrnn_objects = _documented_objects()


def _link_chapters_using(app, what, name, obj, options, lines: list[str]) -> None:
    docs = getattr(app.env, "lrnn_used_in", {}).get(name)
    if docs:
        lines += ["", "Used in: " + ", ".join(f":doc:`/{doc}`" for doc in docs) + "."]


def _documented_objects() -> dict[str, str]:
    """Short and qualified names -> qualified name of every public function or class with a
    docstring in ``lrnn_core`` (what the reference documents); short names only if unique."""
    lrnn_core = importlib.import_module("lrnn_core")
    by_name: dict[str, set[str]] = defaultdict(set)
    for info in pkgutil.walk_packages(lrnn_core.__path__, "lrnn_core."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (
                not name.startswith("_")
                and (inspect.isfunction(obj) or inspect.isclass(obj))
                and obj.__module__ == module.__name__
                and obj.__doc__
            ):
                qualified = f"{module.__name__}.{obj.__qualname__}"
                by_name[name].add(qualified)
                by_name[qualified].add(qualified)
    return {name: next(iter(q)) for name, q in by_name.items() if len(q) == 1}


def _one_document(app, doctree) -> None:
    """Point every node of the page at the page (see 7. above)."""
    for node in doctree.findall():
        node.document = doctree


def _link_library_names(app, doctree) -> None:
    if app.env.docname.startswith(REFERENCE):
        return
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal.parent, (nodes.reference, addnodes.pending_xref, nodes.title)):
            continue
        target = app.env.lrnn_objects.get(literal.astext().removesuffix("()"))
        if target:
            xref = addnodes.pending_xref(
                "", refdomain="py", reftype="obj", reftarget=target, refexplicit=True
            )
            xref["refdoc"] = app.env.docname
            literal.replace_self(xref)
            xref += literal


class _Source(str):
    """A default value shown as written in the source (``nnx.relu``, not its repr)."""

    def __repr__(self) -> str:
        return str(self)


def _source_defaults(function) -> dict[str, _Source]:
    """Parameter name -> the source text of its default value, read from ``function``'s code
    (none for a function without source, e.g. a dataclass's generated ``__init__``)."""
    try:
        text = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return {}
    tree = ast.parse(text)
    args = tree.body[0].args
    positional = [*args.posonlyargs, *args.args]
    with_default = positional[len(positional) - len(args.defaults) :]
    pairs = [*zip(with_default, args.defaults, strict=True)]
    pairs += [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    return {a.arg: _Source(ast.get_source_segment(text, d)) for a, d in pairs}


def init_signature(what: str, obj: object, signature: str | None) -> str | None:
    """The signature of ``obj.__init__``, defaults as written and without ``self`` and
    annotations (the reference puts types in the description), where autodoc found only
    ``(*args, **kwargs)`` for a class."""
    if what != "class" or signature != "(*args, **kwargs)":
        return signature
    init = inspect.signature(obj.__init__)
    defaults = _source_defaults(obj.__init__)
    plain = [
        p.replace(annotation=p.empty, default=defaults.get(p.name, p.default))
        for p in list(init.parameters.values())[1:]
    ]
    return str(init.replace(parameters=plain, return_annotation=init.empty))


def _show_init_signature(app, what, name, obj, options, signature, return_annotation):
    return init_signature(what, obj, signature), return_annotation


def setup(app):
    app.connect("builder-inited", _index_library)
    app.connect("doctree-read", _one_document)
    app.connect("doctree-read", _link_library_names)
    app.connect("autodoc-process-docstring", _link_chapters_using)
    app.connect("autodoc-process-signature", _show_init_signature)
    app.connect("env-get-outdated", _read_every_time)
    app.connect("env-before-read-docs", _read_report_last)
    # After sphinx-book-theme has built the launch buttons (its handler runs at priority 501).
    app.connect("html-page-context", _colab_opens_the_notebook, priority=600)
    # After every extension that adds a script to the page (their handlers run at 500).
    app.connect("html-page-context", _each_script_once, priority=900)
    # Reading in parallel would break "the report is read last".
    return {"parallel_read_safe": False, "parallel_write_safe": True}
