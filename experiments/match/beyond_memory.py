"""Queries whose partial embeddings exceed device memory: the dropped random-walk queries.

../shared/data/matching/README.md gives the recipe of the randomly labeled
graphs' queries (email-Enron and ca-AstroPh, random walks of 4..16 vertices)
and lists the queries it dropped because the CPU study code did not finish
them within 120 s. This script draws the walks again by that recipe, checks
that every kept query comes out byte for byte equal to its file (so the
dropped ones are the very queries of the set), and counts the dropped ones.

Per query, in a child process under ``--timeout`` (so one slow query cannot
take the rest with it): the count, its time (device span, median of
``--repeats``, on a GPU; wall-clock on the CPU), the device's peak bytes in
use, and what level-by-level storage of the embeddings alone would take (the
last level of the prefix tree at 8 bytes a node, and flat rows at 4 bytes an
image); ``--check`` counts each query again with other settings of
``kcjax.count_embeddings`` (another order, another platform) and records
whether the counts agree.

    python experiments/match/beyond_memory.py --out experiments/results/match/beyond.json \
        --check naive_order --check cpu
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "matching").exists()),
    ROOT.parent / "shared" / "data",
)
GRAPHS = {"email-Enron": 8101, "ca-AstroPh": 8102}  # the README's label seeds
SIZES = (4, 8, 12, 16)
CHECKS = {
    "default": {},
    "naive_order": {"order": "naive"},
    "gvsm_order": {"order": "gvsm"},
    "no_blacklist": {"blacklist": False},
    "cpu": {},
}


def _read(name: str) -> tuple[np.ndarray, list[list[int]]]:
    """(labels, sorted adjacency lists) of a shared data graph (read on the CPU)."""
    import kcjax

    g = kcjax.load_labeled(SHARED / "matching" / f"{name}.graph.gz")
    indptr, indices = np.asarray(g.graph.indptr), np.asarray(g.graph.indices)
    adj = [indices[indptr[v] : indptr[v + 1]].tolist() for v in range(g.num_nodes)]
    return np.asarray(g.labels), adj


def _walk(rng: np.random.Generator, adj: list[list[int]], q: int) -> list[int]:
    """Vertices in order of first visit of a random walk reaching q of them."""
    while True:
        cur = int(rng.integers(0, len(adj)))
        seen = [cur]
        for _ in range(50 * q):
            if len(seen) == q:
                break
            nbrs = adj[cur]
            cur = nbrs[int(rng.integers(0, len(nbrs)))]
            if cur not in seen:
                seen.append(cur)
        if len(seen) == q:
            return seen


def _text(seen: list[int], labels: np.ndarray, adj: list[list[int]]) -> tuple[str, int]:
    """The ``.graph`` text of the subgraph induced on ``seen`` and its edge count."""
    pos = {v: i for i, v in enumerate(seen)}
    edges = sorted((i, pos[w]) for i, v in enumerate(seen) for w in adj[v] if pos.get(w, -1) > i)
    deg = np.zeros(len(seen), np.int64)
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    lines = [f"t {len(seen)} {len(edges)}"]
    lines += [f"v {i} {labels[v]} {deg[i]}" for i, v in enumerate(seen)]
    lines += [f"e {a} {b}" for a, b in edges]
    return "\n".join(lines) + "\n", len(edges)


def queries(name: str) -> dict[str, str]:
    """Every query the README's recipe draws for ``name``: {query name: text}."""
    labels, adj = _read(name)
    rng = np.random.default_rng(GRAPHS[name] + 1)
    out = {}
    for q in SIZES:
        if q == 4:
            for i in range(6):
                out[f"query_4_{i + 1}"] = _text(_walk(rng, adj, q), labels, adj)[0]
            continue
        found = {"dense": 0, "sparse": 0}
        while min(found.values()) < 3:
            text, m = _text(_walk(rng, adj, q), labels, adj)
            kind = "dense" if 2 * m / q >= 3 else "sparse"
            if found[kind] < 3:
                found[kind] += 1
                out[f"query_{kind}_{q}_{found[kind]}"] = text
    return out


def dropped(name: str) -> dict[str, str]:
    """The dropped queries of ``name`` ({name: text}); checks the kept ones against their files."""
    out = {}
    for query, text in queries(name).items():
        path = SHARED / "matching" / "queries" / name / f"{query}.graph"
        if not path.exists():
            out[query] = text
        elif path.read_text() != text:
            raise SystemExit(f"{name} {query}: the recipe does not reproduce {path}")
    return out


def _one(name: str, path: str, settings: list[str], repeats: int) -> dict:
    """Counts the query file ``path`` in ``name`` under each setting (the child process)."""
    import jax

    if settings == ["cpu"]:
        jax.config.update("jax_platforms", "cpu")
    sys.path.insert(0, str(ROOT / "experiments" / "tools"))
    from devtime import device_times

    import kcjax

    data = kcjax.load_labeled(SHARED / "matching" / f"{name}.graph.gz")
    q = kcjax.load_labeled(path)
    out = {"graph": name, "query": Path(path).stem, "vertices": q.num_nodes, "edges": q.num_edges}
    for setting in settings:
        fn = functools.partial(kcjax.count_embeddings, data, q, **CHECKS[setting])
        t = time.perf_counter()
        count = fn()
        first = time.perf_counter() - t
        row = {"count": str(count), "first_wall_s": first}
        dev = jax.devices()[0]
        if dev.platform == "gpu" and repeats > 0:
            spans = device_times(fn, repeats)
            row["median_s"] = max(v["span_s"] for v in spans.values())
        else:
            walls = [first]
            for _ in range(max(repeats - 1, 0)):
                t = time.perf_counter()
                fn()
                walls.append(time.perf_counter() - t)
            row["median_s"] = statistics.median(walls)
        row["peak_bytes"] = (dev.memory_stats() or {}).get("peak_bytes_in_use")
        row["device"] = dev.device_kind
        out[setting] = row
    c = int(out[settings[0]]["count"])
    out["tree_last_level_bytes"] = 8 * c
    out["flat_rows_bytes"] = 4 * q.num_nodes * c
    return out


def _child(name: str, path: Path, settings: list[str], repeats: int, timeout: float) -> dict:
    query = path.stem
    cmd = [sys.executable, "-P", __file__, "--one", name, str(path), "--repeats", str(repeats)]
    cmd += [a for s in settings for a in ("--check", s)]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"graph": name, "query": query, "timeout_s": timeout, "settings": settings}
    if res.returncode != 0:
        return {"graph": name, "query": query, "error": res.stderr.strip()[-400:]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    p.add_argument("--queries", nargs="*", default=None, help="only these dropped queries")
    p.add_argument("--check", action="append", default=[], choices=sorted(CHECKS))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--timeout", type=float, default=120.0, help="per query and setting (s)")
    p.add_argument("--save-queries", type=Path, default=None, help="keep the dropped queries here")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--one", nargs=2, metavar=("GRAPH", "QUERY_FILE"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.one:
        print(json.dumps(_one(*a.one, a.check or ["default"], a.repeats)))
        return 0
    import jax

    jax.config.update("jax_platforms", "cpu")  # the walks read graphs; the GPU is for the children
    with tempfile.TemporaryDirectory() as tmp:
        return _run(a, a.save_queries or Path(tmp))


def _run(a: argparse.Namespace, folder: Path) -> int:
    rows = []
    for name in a.graphs:
        (folder / name).mkdir(parents=True, exist_ok=True)
        for query, text in dropped(name).items():
            path = folder / name / f"{query}.graph"
            path.write_text(text)
            if a.queries and query not in a.queries:
                continue
            row = _child(name, path, ["default"], a.repeats, a.timeout)
            for setting in a.check:
                other = _child(name, path, [setting], 1, a.timeout)
                row[setting] = other.get(setting, other)
            base = row.get("default", {}).get("count")
            row["checked_by"] = [s for s in a.check if row[s].get("count") == base]
            row["disagree"] = [s for s in a.check if row[s].get("count") not in (None, base)]
            rows.append(row)
            d = row.get("default", {})
            print(
                f"{name:12s} {query:18s} {d.get('count', row.get('timeout_s', 'error')):>22} "
                f"{d.get('median_s', float('nan')):9.4f} s "
                f"peak {(d.get('peak_bytes') or 0) / 2**20:7.1f} MiB "
                f"tree {row.get('tree_last_level_bytes', 0) / 1e9:9.1f} GB "
                + " ".join(f"{s}={row[s].get('count', 'timeout')}" for s in a.check),
                flush=True,
            )
            if a.out:
                a.out.parent.mkdir(parents=True, exist_ok=True)
                a.out.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
