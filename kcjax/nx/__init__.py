"""kcjax as a networkx backend (``backend="kcjax"``).

Registered through the ``networkx.backends`` and ``networkx.backend_info``
entry points. networkx loads :func:`get_info` when it is imported, so this
module imports neither jax nor networkx: the implementations (one module per
algorithm group) load on the first call.

Which calls kcjax serves is decided per call by :meth:`BackendInterface.can_run`
(undirected simple graphs, unweighted, only the arguments implemented; anything
else falls back to networkx where ``nx.config.fallback_to_nx`` is on or
networkx chose the backend by priority). A new family adds its functions to
:data:`FUNCTIONS` and, where some arguments are not served, a rule to
:data:`DECLINE` (or a check in :func:`can_run`).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import numbers
import reprlib
from collections.abc import Callable
from typing import Any

#: networkx function name -> the kcjax.nx module implementing it.
FUNCTIONS: dict[str, str] = {
    "triangles": "cluster",
    "transitivity": "cluster",
    "core_number": "core",
    "k_core": "core",
    "k_truss": "core",
    "enumerate_all_cliques": "clique",
    "find_cliques": "clique",
    "find_cliques_recursive": "clique",
    "node_clique_number": "clique",
    "max_weight_clique": "clique",
    "bfs_edges": "traversal",
    "bfs_tree": "traversal",
    "bfs_layers": "traversal",
    "bfs_predecessors": "traversal",
    "bfs_successors": "traversal",
    "descendants_at_distance": "traversal",
    "single_source_shortest_path_length": "shortest_paths",
    "single_target_shortest_path_length": "shortest_paths",
    "all_pairs_shortest_path_length": "shortest_paths",
    "shortest_path_length": "shortest_paths",
    "eccentricity": "shortest_paths",
    "diameter": "shortest_paths",
}

#: Functions whose networkx results depend on self loops (networkx raises on them).
SELF_LOOP_SENSITIVE = frozenset({"core_number", "k_core", "k_truss"})

#: Functions returning a subgraph of G: networkx builds it as G's own class,
#: so only plain ``nx.Graph`` inputs are served.
RETURNS_SUBGRAPH = frozenset({"k_core", "k_truss"})

#: Arguments served only at these values (others decline, networkx runs instead).
DECLINE: dict[str, dict[str, Any]] = {
    "find_cliques": {"nodes": None},
    "find_cliques_recursive": {"nodes": None},
    "node_clique_number": {"cliques": None},
    "bfs_edges": {"sort_neighbors": None},
    "bfs_tree": {"sort_neighbors": None},
    "bfs_predecessors": {"sort_neighbors": None},
    "bfs_successors": {"sort_neighbors": None},
    "shortest_path_length": {"weight": None},
    "eccentricity": {"sp": None, "weight": None},
    "diameter": {"e": None, "usebounds": False, "weight": None},
}

#: Short notes for networkx's "Backends" docstring section.
NOTES: dict[str, str] = {
    "triangles": "Per-vertex triangle counts from kcjax's clique kernels (exact, 128-bit).",
    "transitivity": "3 x triangles / wedges from kcjax's triangle count.",
    "core_number": "kcjax's peeling.",
    "k_core": "kcjax's core numbers; the subgraph is built in networkx's orders.",
    "k_truss": (
        "kcjax's truss peeling (k-1 core prefilter); the subgraph is built in "
        "networkx's orders, attributes copied. Integer k only."
    ),
    "enumerate_all_cliques": (
        "kcjax's listing, one size at a time; within a size in networkx's order."
    ),
    "find_cliques": (
        "kcjax's maximal-clique search (Bron-Kerbosch with pivoting per degeneracy-ordered "
        "root), streamed in batches; the same cliques as networkx in another order. "
        "``nodes`` is not supported."
    ),
    "find_cliques_recursive": "As ``find_cliques`` (the same cliques; an iterator).",
    "node_clique_number": (
        "One pass of kcjax's maximal-clique search keeping each node's largest clique; "
        "``cliques`` is not supported."
    ),
    "max_weight_clique": (
        "Unit weights only (``weight=None`` or every node's weight the int 1): a maximum "
        "clique from kcjax.clique_number; other weights are declined."
    ),
    "bfs_edges": (
        "networkx's discovery order by one native pass over the adjacency in networkx's "
        "order. "
        "``sort_neighbors`` is not supported."
    ),
    "shortest_path_length": "Unweighted forms only (``weight=None``).",
    "eccentricity": "Batched kcjax BFS; no ``sp``, unweighted.",
    "diameter": "Batched kcjax BFS; no ``e``, ``usebounds=False``, unweighted.",
}


#: Functions the issue asked for that kcjax does not serve, and why (listed in
#: ``backend_info`` and given by ``can_run``).
NOT_SERVED: dict[str, str] = {}


@dataclasses.dataclass(frozen=True)
class NxPolicy:
    """When networkx's automatic dispatch should use kcjax (``should_run``)."""

    #: Converting a networkx graph is an O(m) Python pass, like one networkx
    #: traversal, so BFS-like calls pay only on graphs already converted (cached).
    linear_min_edges: int = 1 << 62
    #: Triangle, core and clique work is superlinear in networkx; below this the
    #: conversion and kernel launch cost more than networkx's own loop.
    superlinear_min_edges: int = 2000


POLICY = NxPolicy()

_SUPERLINEAR = frozenset(
    {
        "triangles",
        "transitivity",
        "core_number",
        "k_core",
        "k_truss",
        "enumerate_all_cliques",
        "find_cliques",
        "find_cliques_recursive",
        "node_clique_number",
        "max_weight_clique",
    }
)


def _bound_arguments(name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    import networkx as nx

    func = nx.utils.backends._registered_algorithms[name]
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def _nx_graph_type() -> type:
    import networkx as nx

    return nx.Graph


def _is_backend_graph(G: Any) -> bool:
    return getattr(G, "__networkx_backend__", None) == "kcjax"


def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """Whether kcjax serves this call exactly; a string says why not."""
    if name not in FUNCTIONS:
        return NOT_SERVED.get(name, f"kcjax does not implement {name}")
    try:
        arguments = _bound_arguments(name, args, kwargs)
    except TypeError as err:
        return f"arguments do not bind: {err}"
    G = arguments.get("G")
    if G is None:
        return "no graph argument"
    if not _is_backend_graph(G):
        if G.is_directed():
            return "kcjax graphs are undirected"
        if G.is_multigraph():
            return "kcjax graphs are simple (no multigraphs)"
        if name in RETURNS_SUBGRAPH and type(G) is not _nx_graph_type():
            return f"networkx returns a {type(G).__name__} (kcjax builds nx.Graph)"
    if name in SELF_LOOP_SENSITIVE:
        import networkx as nx

        loops = G.self_loops if _is_backend_graph(G) else nx.number_of_selfloops(G)
        if loops:
            return f"networkx's {name} refuses self loops"
    if name == "k_truss" and not isinstance(arguments.get("k"), numbers.Integral):
        return "k must be an int (networkx's own loop handles other numbers)"
    if name == "max_weight_clique":
        reason = _unit_weights(G, arguments.get("weight"))
        if reason is not True:
            return reason
    for arg, served in DECLINE.get(name, {}).items():
        value = arguments.get(arg, served)
        if value is not served and value != served:
            return f"{arg}={reprlib.repr(value)} is not supported (only {served!r})"
    return True


def _unit_weights(G: Any, weight: Any) -> bool | str:
    """Whether every node weight is 1 for max_weight_clique (``weight=None``: all are)."""
    if weight is None:
        return True
    attrs = G.node_attrs if _is_backend_graph(G) else G._node.values()
    if attrs is None:
        return "the backend graph was converted without node attributes"
    for data in attrs:
        if weight not in data:
            return f"a node has no {weight!r} attribute (networkx raises KeyError)"
        value = data[weight]
        if not isinstance(value, int):
            return f"a node's {weight!r} is not an int (networkx raises ValueError)"
        if value != 1:
            return "weights other than 1: kcjax finds maximum cliques, not weighted ones"
    return True


def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """Whether kcjax is expected to be faster than networkx for this call."""
    G = _bound_arguments(name, args, kwargs).get("G")
    if _is_backend_graph(G):
        return True
    edges = G.number_of_edges()
    floor = POLICY.superlinear_min_edges if name in _SUPERLINEAR else POLICY.linear_min_edges
    if edges < floor:
        return f"{edges} edges: converting costs more than networkx's own run"
    return True


def _lazy(module: str, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        impl = getattr(importlib.import_module(f"kcjax.nx.{module}"), name)
        return impl(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"networkx.{name} served by kcjax (kcjax.nx.{module}.{name})."
    return call


def _convert_from_nx(G: Any, *args: Any, **kwargs: Any) -> Any:
    from kcjax.nx.convert import convert_from_nx

    return convert_from_nx(G, *args, **kwargs)


def from_networkx(G: Any) -> Any:
    """A networkx Graph as a kcjax backend graph, to convert once and pass to many calls.

    Calls given the returned graph dispatch to kcjax without converting again.

    Raises:
      NotImplementedError: for directed graphs and multigraphs.
    """
    return _convert_from_nx(
        G, preserve_edge_attrs=True, preserve_node_attrs=True, preserve_graph_attrs=True
    )


def _convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
    from kcjax.nx.convert import convert_to_nx

    return convert_to_nx(obj, name=name)


def _on_start_tests(items: list) -> None:
    """Marks the networkx tests that cannot pass through this backend (see XFAIL)."""
    import pytest

    from kcjax.nx.testing import XFAIL

    for item in items:
        reason = XFAIL.get(item.nodeid.split("::", 1)[-1])
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


class BackendInterface:
    """The object networkx loads for ``backend="kcjax"``."""

    convert_from_nx = staticmethod(_convert_from_nx)
    convert_to_nx = staticmethod(_convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    on_start_tests = staticmethod(_on_start_tests)


for _name, _module in FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_lazy(_module, _name)))


def get_info() -> dict[str, Any]:
    """The ``networkx.backend_info`` entry point: what the backend implements."""
    return {
        "backend_name": "kcjax",
        "project": "kcjax",
        "package": "kcjax",
        "short_summary": "Exact clique counting, cores and BFS on JAX devices (XLA FFI kernels).",
        "default_config": {},
        "not_served": dict(NOT_SERVED),
        "functions": {
            name: {"additional_docs": NOTES[name]} if name in NOTES else {} for name in FUNCTIONS
        },
    }
