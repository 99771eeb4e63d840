"""Orvieto, De, Gulcehre, Pascanu & Smith (ICML 2024): what a diagonal linear recurrence stores and
how well conditioned that storage is. Mirrors ``book/orvieto/``."""
