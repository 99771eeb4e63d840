"""Wang & Xue, *State-space models with layer-wise nonlinearity are universal approximators with
exponential decaying memory* (NeurIPS 2023): Volterra targets, the two-layer linear closed form
(App. A), an S4-style HiPPO layer and the Table 1 comparison models. The stacked SSM itself is
:mod:`lrnn_core.core.stacked`. Mirrors ``book/wang-xue/``."""
