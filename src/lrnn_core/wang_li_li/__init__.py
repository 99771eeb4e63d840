"""Wang, Li & Li, *Inverse Approximation Theory for Nonlinear RNNs*: targets, continuous-time RNNs,
stable parameterisations, perturbation error and the curse of memory. Mirrors
``book/wang-li-li/``."""
