"""Independent references: counts from networkx, the shared ground truth, and
the networkx graphs the tests build."""

from __future__ import annotations

import functools
import itertools
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import jax
import networkx as nx
import numpy as np
import pytest

import kcjax

_ROOT = Path(__file__).resolve().parents[2]
#: ../shared/data/graphs beside the repository (or a copy in .gpu/graphs, as
#: carried to the GPU machine); tests that need it skip when it is absent.
DATA_DIR = next(
    (
        p
        for p in (_ROOT.parent / "shared" / "data" / "graphs", _ROOT / ".gpu" / "graphs")
        if p.exists()
    ),
    _ROOT.parent / "shared" / "data" / "graphs",
)


#: The real graphs of DATA_DIR (``NAME.el.gz``) that every family's ground truth covers.
SHARED_GRAPHS: tuple[str, ...] = (
    "email-Enron",
    "ca-AstroPh",
    "soc-Epinions1",
    "wiki-Vote",
    "ego-Facebook",
    "ca-CondMat",
    "cit-HepTh",
    "com-amazon",
    "com-dblp",
)


def has_gpu() -> bool:
    """Whether jax sees a CUDA device."""
    try:
        return bool(jax.devices("cuda"))
    except RuntimeError:
        return False


#: The platforms present: op tests that take the ``platform`` fixture run on each.
PLATFORMS: tuple[str, ...] = ("cpu", "cuda") if has_gpu() else ("cpu",)


def on_platform(tree, platform: str):
    """``tree`` (a Graph, DAG or other pytree of arrays) placed on ``platform``'s first device."""
    return jax.device_put(tree, jax.devices(platform)[0])


def edges_of(g: nx.Graph) -> np.ndarray:
    """int64[e, 2]: the edges of a networkx graph."""
    return np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)


def planted(n: int, p: float, size: int, seed: int) -> nx.Graph:
    """G(n, p) with a clique on ``size`` random vertices added."""
    g = nx.gnp_random_graph(n, p, seed=seed)
    members = np.random.default_rng(seed).choice(n, size, replace=False)
    g.add_edges_from(itertools.combinations(members.tolist(), 2))
    return g


def planted_dense(seed: int, n: int = 300, p: float = 0.12, size: int = 40) -> nx.Graph:
    """G(n, p) with a block of ``size`` random vertices at density 0.9: deep
    levels and large candidate sets, past what networkx enumerates quickly
    (the tests check such graphs' counts by the other algorithm)."""
    g = nx.gnp_random_graph(n, p, seed=seed)
    rng = np.random.default_rng(seed)
    members = rng.choice(n, size, replace=False).tolist()
    g.add_edges_from(
        (a, b) for i, a in enumerate(members) for b in members[i + 1 :] if rng.random() < 0.9
    )
    return g


@functools.cache
def planted_dense_dag(seed: int) -> kcjax.DAG:
    """:func:`planted_dense` oriented, on the CPU (cached: tests place it on each platform)."""
    with jax.default_device(jax.devices("cpu")[0]):
        return kcjax.orient(kcjax.Graph.from_networkx(planted_dense(seed)))


def clique_counts_networkx(edges: np.ndarray, num_nodes: int, kmax: int) -> dict[int, int]:
    """{k: number of k-cliques} for k = 1..kmax by networkx's clique enumeration."""
    g = nx.Graph()
    g.add_nodes_from(range(num_nodes))
    g.add_edges_from((int(u), int(v)) for u, v in edges if u != v)
    sizes = Counter()
    for clique in nx.enumerate_all_cliques(g):
        if len(clique) > kmax:
            break
        sizes[len(clique)] += 1
    return {k: sizes.get(k, 0) for k in range(1, kmax + 1)}


@functools.cache
def ground_truth() -> dict[tuple[str, int], int]:
    """{(graph, k): exact count} from ../shared/data/graphs/clique_counts.tsv."""
    path = DATA_DIR / "clique_counts.tsv"
    table = {}
    for line in path.read_text().splitlines()[1:]:
        name, k, count, _ = line.split("\t")
        table[(name, int(k))] = int(count)
    return table


#: The device count of the multidevice tests (forced host CPU devices without them).
FORCED_DEVICES = 4

#: Marks a test that needs FORCED_DEVICES devices: on a machine with fewer,
#: tests/test_multidevice.py runs it in a child process on forced host devices.
multidevice = pytest.mark.skipif(
    jax.device_count() < FORCED_DEVICES,
    reason="needs 4 devices; run by tests/test_multidevice.py",
)


def run_multidevice_tests(test_files: list[str], devices: int) -> subprocess.CompletedProcess:
    """Runs the tests of ``test_files`` marked by name "multidevice" in one child
    pytest on ``devices`` forced CPU host devices (XLA's device count is fixed
    at startup, so it cannot be changed in this process)."""
    flags = os.environ.get("XLA_FLAGS", "")
    env = dict(
        os.environ,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS=f"{flags} --xla_force_host_platform_device_count={devices}".strip(),
    )
    cmd = [sys.executable, "-P", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
    cmd += ["-k", "multidevice", *(str(Path(f).resolve()) for f in test_files)]
    return subprocess.run(cmd, cwd=_ROOT, env=env, capture_output=True, text=True, timeout=600)
