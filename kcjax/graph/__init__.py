"""The graph core every family shares, in pipeline order.

:mod:`~kcjax.graph.io` (files to edge arrays) -> :mod:`~kcjax.graph.graph`
(the canonical undirected CSR) -> :mod:`~kcjax.graph.orient` (the DAG by a
vertex order, core numbers) -> :mod:`~kcjax.graph.tasks` (edge tasks: sizes,
classes, splits); :mod:`~kcjax.graph.generators` makes test and benchmark
graphs. The public names are re-exported by :mod:`kcjax`.
"""
