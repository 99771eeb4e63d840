"""Foundations that know no paper and no book: input checks, scans, eigenvalue laws, Vandermonde
tools and the one pseudo-inverse, memory-function probes, the LRU layer with its MLP head, and the
one training loop."""
