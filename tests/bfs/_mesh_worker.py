"""One process of test_mesh.py's two-process test (not a test module).

Usage: python -P _mesh_worker.py COORDINATOR NUM_PROCESSES PROCESS_ID TIMEOUT_S

Joins the distributed runtime, runs kcjax.bfs over a mesh of every process's
devices on a random graph (built on every process) and on a Kronecker graph
generated on the mesh, validates trees on the devices, and prints one line
``RESULT {json}`` with the distances (read back on every process) beside the
single-device distances of the same graphs; then shuts the runtime down.
"""

from __future__ import annotations

import json
import sys

import jax
import networkx as nx
import numpy as np
from jax.experimental import multihost_utils

import kcjax

SOURCES = np.array([0, 7, 150, 289], np.int32)


def _graph() -> kcjax.Graph:
    """test_mesh.py's _random_graph(1)."""
    g = nx.gnp_random_graph(150, 0.015, seed=1)
    g.add_edges_from((150 + i, 151 + i) for i in range(20))  # a long path: many levels
    g.add_edges_from((0, 200 + i) for i in range(60))  # a hub
    edges = np.array(list(g.edges()), np.int64)
    return kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], 290)


def _host(x: jax.Array) -> list:
    return np.asarray(multihost_utils.process_allgather(x, tiled=True)).tolist()


def main(coordinator: str, num_processes: int, process_id: int, timeout_s: int) -> None:
    kcjax.initialize_from_env_or_args(coordinator, num_processes, process_id, timeout_s=timeout_s)
    mesh = jax.make_mesh((jax.device_count(),), ("v",))
    graph = _graph()
    out = kcjax.bfs(graph, sources=SOURCES, mesh=mesh)
    kron = kcjax.generators.kronecker(9, 8, seed=3, mesh=mesh)
    kron_out = kcjax.bfs(kron, sources=SOURCES)
    one = kcjax.bfs(kron, 7)
    kcjax.validate_bfs_tree(kron, 7, one)
    result = {
        "process_index": jax.process_index(),
        "devices": jax.device_count(),
        "mesh": _host(out.distances),
        "single": np.asarray(kcjax.bfs(graph, sources=SOURCES).distances).tolist(),
        "kron_edges": kron.num_edges,
        "kron_entries": kron.shard_entries().tolist(),
        "kron": _host(kron_out.distances),
    }
    print("RESULT " + json.dumps(result), flush=True)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
