"""Graphs that ``method="auto"``'s rule was not fitted on: public graphs and adversarial cases.

    python -P experiments/cliques/auto_graphs.py prepare [--dest .gpu/auto]
    python -P experiments/cliques/auto_graphs.py counts [--names ...] [--ks 3-12] [--out F.tsv]

``prepare`` writes the public graphs that need a download or a slow
generator to ``.gpu/auto/NAME.npz`` (ignored by git; it travels to the GPU
machine with the repository, about 5 MiB): the network collection that
Debian's ``python3-graph-tool`` package ships (fetched with ``apt-get
download`` and unpacked with ``dpkg-deb``, nothing installed; its ``.gt``
files are read by :func:`read_gt`), and graphs of published random models
drawn with networkx and scipy. Kronecker graphs and the adversarial cases
are drawn here from seeded numpy streams on every machine, so they need no
file.

``counts`` counts every k-clique of these graphs on the CPU with KCMiner
and with pivoting (both must agree) and writes
``experiments/results/cliques/auto_public_counts.tsv``; a (graph, k) that
one method cannot count within ``--cpu-budget`` seconds is marked.

The sets (:data:`PUBLIC`, :data:`ADVERSARIAL`):

- the graph-tool collection (M. Newman's and others' data): as-22july06
  (Internet autonomous systems), astro-ph, cond-mat, cond-mat-2003,
  cond-mat-2005, hep-th, netscience (co-authorship), pgp-strong-2009 (PGP
  web of trust), polblogs (blog hyperlinks), power (the US power grid),
  celegansneural (neurons), serengeti-foodweb; directed ones symmetrized.
- stochastic Kronecker graphs with the initiators KronFit fitted to real
  networks (Leskovec et al., JMLR 11, 2010): CA-GrQc, CA-HepTh, CA-HepPh,
  AS-RouteViews, AS-Newman at their networks' sizes, and CA-HepPh carried
  to 2^18 vertices.
- LFR benchmark graphs (Lancichinetti, Fortunato, Radicchi 2008: 5000
  vertices, average degree 20, largest 50, communities of 20-100, mixing
  0.1 and 0.4, exponents tau1 = 2.5 and tau2 = 1.5 from the paper's ranges
  [2, 3] and [1, 2]: networkx cannot match the average degree at tau1 = 2),
  Holme-Kim (2002: 10^5 vertices, m = 3, m_t = 1.8, p = 0.9) and a random
  geometric graph (200,000 points of the unit square, mean degree 6: a
  road-like planar-ish graph).
- adversarial: a large clique on low-degree vertices of a sparse power-law
  graph whose members also link to many hubs (the web crawl of issue 51:
  its lowest member's out-neighbourhood is large and sparse), many
  medium cliques sharing one hub, and cliques minus a matching (a pivot
  tree doubles at every missing pair).
"""

from __future__ import annotations

import argparse
import gzip
import math
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
ROOT = _HERE.parents[1]
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
import kcjax  # noqa: E402
from kcjax import generators as gen  # noqa: E402

DEST = ROOT / ".gpu" / "auto"
COUNTS = ROOT / "experiments" / "results" / "cliques" / "auto_public_counts.tsv"

#: graph-tool collection files used (email-Enron is a shared graph; the
#: collection's graphs under 150 vertices are left out).
GRAPH_TOOL = (
    "as-22july06",
    "astro-ph",
    "cond-mat",
    "cond-mat-2003",
    "cond-mat-2005",
    "hep-th",
    "netscience",
    "pgp-strong-2009",
    "polblogs",
    "power",
    "celegansneural",
    "serengeti-foodweb",
)

#: KronFit's initiators [[a, b], [b, c]] as (a, b, c) and the scale (log2 of
#: the vertices) of the network they were fitted to (Leskovec et al. 2010).
KRONFIT = {
    "kron-CA-GrQc": ((0.999, 0.245, 0.691), 13),
    "kron-CA-HepTh": ((0.999, 0.271, 0.587), 14),
    "kron-CA-HepPh": ((0.999, 0.437, 0.484), 14),
    "kron-AS-RouteViews": ((0.987, 0.571, 0.049), 13),
    "kron-AS-Newman": ((0.954, 0.594, 0.019), 15),
    "kron-CA-HepPh-18": ((0.999, 0.437, 0.484), 18),
}

MODELS = ("lfr5k-0.1", "lfr5k-0.4", "holme-kim-100k", "rgg200k")


def read_gt(data: bytes) -> tuple[int, np.ndarray, np.ndarray]:
    """(n, src, dst) of graph-tool's binary ``.gt`` format (its adjacency
    part: magic, version, byte order, comment, directedness, n, then per
    vertex a uint64 count and that many neighbour ids of the smallest
    unsigned width that holds n; property maps after it are not read)."""
    if data[:6] != b"\xe2\x9b\xbe gt":
        raise ValueError("not a graph-tool .gt file")
    if data[7] != 0:
        raise ValueError("big-endian .gt files are not supported")
    (comment,) = struct.unpack_from("<Q", data, 8)
    off = 16 + comment + 1  # comment, then the directed flag
    (n,) = struct.unpack_from("<Q", data, off)
    off += 8
    width = 1 if n <= 1 << 8 else 2 if n <= 1 << 16 else 4 if n <= 1 << 32 else 8
    dtype = np.dtype(f"<u{width}")
    srcs, dsts = [], []
    for v in range(n):
        (k,) = struct.unpack_from("<Q", data, off)
        off += 8
        if k:
            dsts.append(np.frombuffer(data, dtype, k, off).astype(np.int64))
            srcs.append(np.full(k, v, np.int64))
            off += k * width
    empty = np.zeros(0, np.int64)
    src = np.concatenate(srcs) if srcs else empty
    dst = np.concatenate(dsts) if dsts else empty
    return int(n), src, dst


def fetch_graph_tool(dest: Path) -> None:
    """Writes dest/NAME.npz for every :data:`GRAPH_TOOL` graph, from Debian's
    python3-graph-tool package (downloaded, unpacked in a temporary folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", "python3-graph-tool"], cwd=tmp, check=True)
        deb = next(Path(tmp).glob("python3-graph-tool_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(Path(tmp) / "x")], check=True)
        coll = next(Path(tmp).rglob("graph_tool/collection"))
        for name in GRAPH_TOOL:
            n, src, dst = read_gt(gzip.decompress((coll / f"{name}.gt.gz").read_bytes()))
            _save(dest / f"{name}.npz", n, src, dst)


def kronecker_fit(theta: tuple[float, float, float], scale: int, seed: int) -> kcjax.Graph:
    """A stochastic Kronecker graph of initiator [[a, b], [b, c]] and 2^scale
    vertices, drawn by dropping edges one quadrant per level (as R-MAT) until
    it holds the model's expected number of undirected edges,
    ((a + 2b + c)^scale - (a + c)^scale) / 2 (loops and repeats dropped)."""
    a, b, c = theta
    total = a + 2 * b + c
    want = round((total**scale - (a + c) ** scale) / 2)
    rng = np.random.default_rng(seed)
    cum = np.cumsum([a, b, b, c]) / total
    keys = np.zeros(0, np.int64)
    while keys.size < want:
        batch = int((want - keys.size) * 1.1) + 1024
        src = np.zeros(batch, np.int64)
        dst = np.zeros(batch, np.int64)
        for bit in range(scale):
            q = np.searchsorted(cum, rng.random(batch), side="right")
            src |= (q >> 1 & 1) << bit
            dst |= (q & 1) << bit
        lo, hi = np.minimum(src, dst), np.maximum(src, dst)
        new = (lo << 32 | hi)[lo != hi]
        keys = np.unique(np.concatenate([keys, new]))
    keys = rng.permutation(keys)[:want]
    return kcjax.Graph.from_edges(keys >> 32, keys & 0xFFFFFFFF, num_nodes=1 << scale)


def _models(dest: Path) -> None:
    """Writes the networkx / scipy model graphs of :data:`MODELS`."""
    import networkx as nx
    from scipy.spatial import cKDTree

    for mu, name in ((0.1, "lfr5k-0.1"), (0.4, "lfr5k-0.4")):
        g = nx.LFR_benchmark_graph(
            5000, 2.5, 1.5, mu, average_degree=20, max_degree=50,
            min_community=20, max_community=100, seed=7, max_iters=1000,
        )  # fmt: skip
        _save_nx(dest / f"{name}.npz", g)
    _save_nx(dest / "holme-kim-100k.npz", nx.powerlaw_cluster_graph(100_000, 3, 0.9, seed=7))
    n = 200_000
    points = np.random.default_rng(7).random((n, 2))
    pairs = cKDTree(points).query_pairs(math.sqrt(6.0 / (math.pi * n)), output_type="ndarray")
    _save(dest / "rgg200k.npz", n, pairs[:, 0], pairs[:, 1])


def _save_nx(path: Path, g) -> None:
    edges = np.asarray(list(g.edges()), np.int64).reshape(-1, 2)
    _save(path, g.number_of_nodes(), edges[:, 0], edges[:, 1])


def _save(path: Path, n: int, src: np.ndarray, dst: np.ndarray) -> None:
    """An undirected simple graph as sorted (lo, hi) int32 pairs, compressed."""
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    keys = np.unique((lo << 32 | hi)[lo != hi])
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        n=np.int64(n),
        src=(keys >> 32).astype(np.int32),
        dst=(keys & 0xFFFFFFFF).astype(np.int32),
    )


def _load(name: str, dest: Path = DEST) -> kcjax.Graph:
    path = dest / f"{name}.npz"
    if not path.exists():
        raise SystemExit(f"{path} missing: run `auto_graphs.py prepare` (see its docstring)")
    with np.load(path) as f:
        return kcjax.Graph.from_edges(f["src"], f["dst"], num_nodes=int(f["n"]))


def hidden_clique(n: int, degree: float, size: int, hubs: int, seed: int) -> kcjax.Graph:
    """A Chung-Lu graph (exponent 2.1) with a clique on ``size`` of its
    vertices of degree 1-2, each member also joined to ``hubs`` vertices
    drawn by degree: the lowest member's out-neighbourhood is the rest of
    the clique and its hubs, large and sparse."""
    host = gen.chung_lu(n, degree, 2.1, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    src, dst = (np.asarray(x).astype(np.int64) for x in host.edges())
    deg = np.bincount(np.concatenate([src, dst]), minlength=n)
    members = rng.choice(np.flatnonzero((deg >= 1) & (deg <= 2)), size, replace=False)
    i, j = np.triu_indices(size, 1)
    links = rng.choice(n, size=(size, hubs), p=deg / deg.sum())
    return kcjax.Graph.from_edges(
        np.concatenate([src, members[i], np.repeat(members, hubs)]),
        np.concatenate([dst, members[j], links.ravel()]),
        num_nodes=n,
    )


def hub_cliques(n: int, count: int, size: int, seed: int) -> kcjax.Graph:
    """A Chung-Lu graph with ``count`` disjoint cliques of ``size`` vertices,
    every member also joined to one hub (vertex 0): (size + 1)-cliques that
    share the hub."""
    host = gen.chung_lu(n, 8.0, 2.5, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    src, dst = (np.asarray(x).astype(np.int64) for x in host.edges())
    members = rng.permutation(np.arange(1, n))[: count * size].reshape(count, size)
    i, j = np.triu_indices(size, 1)
    return kcjax.Graph.from_edges(
        np.concatenate([src, members[:, i].ravel(), np.zeros(count * size, np.int64)]),
        np.concatenate([dst, members[:, j].ravel(), members.ravel()]),
        num_nodes=n,
    )


def clique_minus_matching(n: int, size: int, pairs: int, seed: int) -> kcjax.Graph:
    """A Chung-Lu graph with a clique of ``size`` random vertices less
    ``pairs`` disjoint pairs of them (a matching)."""
    host = gen.chung_lu(n, 8.0, 2.5, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    src, dst = (np.asarray(x).astype(np.int64) for x in host.edges())
    members = rng.permutation(n)[:size]
    i, j = np.triu_indices(size, 1)
    cut = {(2 * t, 2 * t + 1) for t in range(pairs)}
    keep = np.array([(a, b) not in cut for a, b in zip(i.tolist(), j.tolist(), strict=True)])
    lost = {(members[2 * t], members[2 * t + 1]) for t in range(pairs)}
    lost |= {(b, a) for a, b in lost}
    host_keep = np.array(
        [(a, b) not in lost for a, b in zip(src.tolist(), dst.tolist(), strict=True)], bool
    )
    return kcjax.Graph.from_edges(
        np.concatenate([src[host_keep], members[i[keep]]]),
        np.concatenate([dst[host_keep], members[j[keep]]]),
        num_nodes=n,
    )


#: name -> builder: the public graphs (files from ``prepare``, Kronecker drawn here).
PUBLIC: dict[str, Callable[[], kcjax.Graph]] = {
    **{name: (lambda name=name: _load(name)) for name in GRAPH_TOOL},
    **{
        name: (lambda theta=theta, scale=scale, i=i: kronecker_fit(theta, scale, seed=51 + i))
        for i, (name, (theta, scale)) in enumerate(KRONFIT.items())
    },
    **{name: (lambda name=name: _load(name)) for name in MODELS},
}

#: name -> builder: the adversarial cases of issue 51 (seeded, drawn here).
ADVERSARIAL: dict[str, Callable[[], kcjax.Graph]] = {
    "web325k+K155h100": lambda: hidden_clique(325_729, 6.7, 155, 100, seed=61),
    "web325k+K100h300": lambda: hidden_clique(325_729, 6.7, 100, 300, seed=62),
    "web200k+K250h30": lambda: hidden_clique(200_000, 6.7, 250, 30, seed=63),
    "hub+200xK30": lambda: hub_cliques(100_000, 200, 30, seed=64),
    "hub+1000xK12": lambda: hub_cliques(100_000, 1000, 12, seed=65),
    "K120-matching12": lambda: clique_minus_matching(50_000, 120, 12, seed=66),
    "K48-matching24": lambda: clique_minus_matching(50_000, 48, 24, seed=67),
}


def count_rows(
    names: list[str], ks: list[int], cpu_budget: float
) -> list[tuple[str, int, str, str]]:
    """(graph, k, count, checked_by) per graph and k, on the CPU: KCMiner and
    pivoting (both must agree), a method dropped from the k after one that
    took longer than ``cpu_budget`` seconds."""
    rows = []
    for name in names:
        graph = (PUBLIC | ADVERSARIAL)[name]()
        dag = kcjax.orient(graph)
        slow: set[str] = set()
        for k in ks:
            counts = {}
            for method in ("kcminer", "pivot"):
                if method in slow:
                    continue
                t0 = time.perf_counter()
                counts[method] = kcjax.count_cliques(dag, k, method=method)
                if time.perf_counter() - t0 > cpu_budget:
                    slow.add(method)
            if len(set(counts.values())) > 1:
                raise SystemExit(f"{name} k={k}: the methods disagree: {counts}")
            value = str(next(iter(counts.values()))) if counts else ""
            rows.append((name, k, value, "+".join(counts) if counts else "gpu"))
            print(name, k, value, "+".join(counts), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    prep = sub.add_parser("prepare", help="fetch and draw the public graphs into --dest")
    prep.add_argument("--dest", type=Path, default=DEST)
    cnt = sub.add_parser("counts", help="exact counts on the CPU, both methods")
    cnt.add_argument("--names", nargs="+", default=None)
    cnt.add_argument("--ks", default="3-12")
    cnt.add_argument("--cpu-budget", type=float, default=60.0)
    cnt.add_argument("--out", type=Path, default=COUNTS)
    args = p.parse_args(argv)
    if args.cmd == "prepare":
        fetch_graph_tool(args.dest)
        _models(args.dest)
        return 0
    lo, _, hi = args.ks.partition("-")
    ks = list(range(int(lo), int(hi or lo) + 1))
    names = args.names or list(PUBLIC | ADVERSARIAL)
    rows = count_rows(names, ks, args.cpu_budget)
    old = {}
    if args.out.exists():  # keep the rows of graphs not counted this time
        for line in args.out.read_text().splitlines()[1:]:
            g, k, c, by = line.split("\t")
            old[(g, int(k))] = (g, int(k), c, by)
    old.update({(g, k): (g, k, c, by) for g, k, c, by in rows})
    lines = ["graph\tk\tcount\tchecked_by"]
    lines += ["\t".join(map(str, old[key])) for key in sorted(old)]
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
