"""The foundations chapter on linear recurrences: the reference loops it checks
:func:`lrnn_core.core.scan.linear_scan` against, and its figures. Knows no paper; rests on
``core``. Mirrors ``book/foundations/``."""
