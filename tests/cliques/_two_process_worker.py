"""One process of the multi-process tests in test_distributed.py (not a test module).

Usage: python -P _two_process_worker.py COORDINATOR NUM_PROCESSES PROCESS_ID TIMEOUT_S
(``- - - TIMEOUT_S`` reads the JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and
JAX_PROCESS_ID environment variables instead).

Joins the distributed runtime, counts the cliques of a fixed random graph over
a mesh of every process's devices (by enumeration with both task splits,
eagerly and under jit; by pivoting: counts, all sizes, per-vertex counts) and
the embeddings of a labeled path, and prints one line ``RESULT {json}`` with
the counts, the single-device counts of the same graph and the device layout;
then shuts the runtime down.
"""

from __future__ import annotations

import json
import sys

import jax
import networkx as nx
import numpy as np

import kcjax

KMAX = 6


def _graph() -> kcjax.Graph:
    g = nx.gnp_random_graph(150, 0.12, seed=11)
    g.add_edges_from((u, v) for u in range(40, 52) for v in range(u + 1, 52))  # a 12-clique
    edges = np.array(g.edges(), dtype=np.int64)
    return kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], g.number_of_nodes())


def main(
    coordinator: str | None, num_processes: int | None, process_id: int | None, timeout_s: int
) -> None:
    joined = kcjax.initialize_from_env_or_args(
        coordinator, num_processes, process_id, timeout_s=timeout_s
    )
    dag = kcjax.orient(_graph())
    mesh = jax.make_mesh((jax.device_count(),), ("d",))
    counts = {
        strategy: _ints(kcjax.count_cliques_sharded(dag, KMAX, mesh, strategy=strategy))
        for strategy in kcjax.STRATEGIES
    }
    graph = jax.tree.map(np.asarray, _graph())
    jitted = jax.jit(lambda g: kcjax.count_cliques_sharded(kcjax.orient(g), KMAX, mesh))
    counts["jit"] = _ints(jitted(graph))
    sizes = range(3, KMAX + 1)
    pivot = kcjax.count_cliques(dag, sizes, method="pivot", mesh=mesh)
    counts["pivot"] = [0, 0, 0] + [pivot[k] for k in sizes]
    local = _ints(kcjax.count_cliques_limbs(dag, KMAX))
    data = kcjax.LabeledGraph.from_edges(
        *(np.asarray(a) for a in _graph().edges()), np.arange(150) % 3
    )
    path = kcjax.LabeledGraph.from_edges([0, 1, 2], [1, 2, 3], [0, 1, 2, 0])
    pairs = {
        "per_vertex": (
            kcjax.clique_counts_per_vertex(dag, 5, method="pivot", mesh=mesh).tolist(),
            kcjax.clique_counts_per_vertex(dag, 5, method="pivot").tolist(),
        ),
        "all": (kcjax.count_all_cliques(dag, mesh=mesh), kcjax.count_all_cliques(dag)),
        "match": (
            kcjax.count_embeddings(data, path, mesh=mesh),
            kcjax.count_embeddings(data, path),
        ),
    }
    result = {
        "joined": joined,
        "process_index": jax.process_index(),
        "process_count": jax.process_count(),
        "local_devices": jax.local_device_count(),
        "devices": jax.device_count(),
        "counts": counts,
        "local": local,
        "pairs": {name: [str(a), str(b)] for name, (a, b) in pairs.items()},
    }
    print("RESULT " + json.dumps(result), flush=True)
    jax.distributed.shutdown()


def _ints(limbs: jax.Array) -> list[int]:
    host = np.asarray(limbs.addressable_data(0))
    return [kcjax.limbs_to_int(row) for row in host]


if __name__ == "__main__":
    given = [None if arg == "-" else arg for arg in sys.argv[1:4]]
    main(
        given[0],
        None if given[1] is None else int(given[1]),
        None if given[2] is None else int(given[2]),
        int(sys.argv[4]),
    )
