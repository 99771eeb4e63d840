"""Wang & Xue, *State-space models with layer-wise nonlinearity are universal approximators with
exponential decaying memory* (NeurIPS 2023). Mirrors ``book/wang-xue/``: ``universality`` (with
``tokenwise``, ``volterra``, ``prony`` and ``universality_figures``) and ``memory`` (with the
Table 1 models in ``baselines`` and ``memory_figures``). The stacked SSM itself is
:mod:`lrnn_core.core.stacked`."""
