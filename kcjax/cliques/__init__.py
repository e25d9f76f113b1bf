"""k-cliques (KCMiner): counts, listing, per-vertex counts, sharded and dense-JAX counts.

:mod:`~kcjax.cliques.kernels` wraps the native targets;
:mod:`~kcjax.cliques.count`, :mod:`~kcjax.cliques.listing` and
:mod:`~kcjax.cliques.local` are the public entry points,
:mod:`~kcjax.cliques.auto` chooses ``method="auto"``,
:mod:`~kcjax.cliques.sharded` spreads a count over a mesh and
:mod:`~kcjax.cliques.dense` is the pure-JAX formulation. The public names are
re-exported by :mod:`kcjax`.
"""
