"""k-truss: edge supports, the k-truss, the maximal k-truss, full truss decomposition.

:mod:`~kcjax.truss.kernels` wraps the native target ``kcjax_truss`` and builds
the edge index it reads; :mod:`~kcjax.truss.truss` holds the public entry
points; :mod:`~kcjax.truss.dense` is the pure-JAX formulation. The public
names are re-exported by :mod:`kcjax`.
"""
