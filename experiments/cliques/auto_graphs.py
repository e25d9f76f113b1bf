"""Graphs that ``method="auto"``'s rule was not fitted on: public graphs and adversarial cases.

    python -P experiments/cliques/auto_graphs.py prepare [--dest .gpu/auto]
    python -P experiments/cliques/auto_graphs.py counts [--names ...] [--ks 3-12] [--out F.tsv]
    python -P experiments/cliques/auto_graphs.py prepare-heldout [--dest .gpu/auto2]
    python -P experiments/cliques/auto_graphs.py counts --heldout [--names ...]
    python -P experiments/cliques/auto_graphs.py prepare-third [--dest .gpu/auto3]
    python -P experiments/cliques/auto_graphs.py counts --third [--names ...]
    python -P experiments/cliques/auto_graphs.py prepare-fourth [--dest .gpu/auto4]
    python -P experiments/cliques/auto_graphs.py counts --fourth [--names ...]

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

The held-out sets (:data:`HELDOUT_PUBLIC`, :data:`HELDOUT_ADVERSARIAL`),
chosen after the rule of kcjax/cliques/auto.py was frozen and never used to
set a threshold; ``prepare-heldout`` writes the public ones to
``.gpu/auto2/NAME.npz`` (about 3 MiB), ``counts --heldout`` their exact
counts to ``experiments/results/cliques/auto_heldout_counts.tsv``:

- from Debian 12 packages (``apt-get download``, unpacked, nothing
  installed): WordNet 3.0's synset graph (wordnet-base: every pointer), the
  LibreOffice English thesaurus (mythes-en-us: headword to every term of
  its meanings), Knuth's word-ladder graph on the 5-letter words of
  wamerican, a crawl of the Python 3.11 documentation's HTML links
  (python3.11-doc), the Gene Ontology's parent links (r-bioc-go.db's
  GO.sqlite), and the dependency graph of this machine's apt lists
  (``apt-cache dumpavail``: Depends, Pre-Depends, Recommends; it follows
  the lists of the day it was drawn, so its file is the reference);
- the graph-tool collection graphs the first check prepared but never
  measured (its deadline came first): pgp-strong-2009, polblogs, power,
  hep-th, cond-mat-2005;
- adversarial, new sizes and seeds: a 120-clique on low-degree vertices
  with 200 hubs each, 400 20-cliques sharing a hub, cliques of 64 and 80
  less a perfect and a partial matching, a complete 15-partite graph of
  parts of 3 (the Moon-Moser graph, the worst case of pivoting), 50
  32-cliques less a perfect matching each, and a 40-clique less a perfect
  matching as a component of its own (its candidate sizes look like a
  clique's: the case the frozen rule is expected to lose).

The third set (:data:`THIRD_PUBLIC`, :data:`THIRD_ADVERSARIAL`), chosen
after the held-out check to judge the next change of the rule (no
threshold has seen it); ``prepare-third`` writes the public ones to
``.gpu/auto3/NAME.npz``, ``counts --third`` their exact counts to
``experiments/results/cliques/auto_third_counts.tsv``: the German, French
and Spanish LibreOffice thesauri (mythes-de, mythes-fr, mythes-es; the
German one has a 94-clique), Knuth's word ladders on wamerican's 4- and
6-letter words, and adversarial cases of new sizes and seeds.

The fourth set (:data:`FOURTH_PUBLIC`, :data:`FOURTH_ADVERSARIAL`), chosen
after the rule was refitted to the pivot counter that splits its heaviest
roots, to judge that rule (no threshold has seen it); ``prepare-fourth``
writes the public ones to ``.gpu/auto4/NAME.npz``, ``counts --fourth``
their exact counts to ``experiments/results/cliques/auto_fourth_counts.tsv``:
the Italian, Portuguese, Russian and Polish LibreOffice thesauri, Knuth's
word ladders on the 5-letter words of Debian's German and French word
lists, crawls of PostgreSQL 15's HTML manual and of libstdc++ 12's Doxygen
pages, and adversarial cases of new sizes and seeds.
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


# --- The held-out set: frozen rule, never fitted on (issue 51, second round) ---

#: Where ``prepare-heldout`` writes the held-out public graphs.
HELDOUT_DEST = ROOT / ".gpu" / "auto2"
HELDOUT_COUNTS = ROOT / "experiments" / "results" / "cliques" / "auto_heldout_counts.tsv"

#: Debian packages the held-out public graphs come from (``apt-get download``).
HELDOUT_DEBS = ("wordnet-base", "mythes-en-us", "wamerican", "python3.11-doc", "r-bioc-go.db")

#: graph-tool collection graphs that were prepared for the first check but
#: never measured (its deadline came first): unseen by the rule too.
HELDOUT_GRAPH_TOOL = ("pgp-strong-2009", "polblogs", "power", "hep-th", "cond-mat-2005")


def _ids(table: dict, key) -> int:
    return table.setdefault(key, len(table))


def _pairs_graph(path: Path, pairs: list[tuple[int, int]], n: int) -> None:
    a = np.asarray(pairs, np.int64).reshape(-1, 2)
    _save(path, n, a[:, 0], a[:, 1])


def wordnet_graph(root: Path) -> tuple[int, list]:
    """WordNet 3.0's synsets (nouns, verbs, adjectives, adverbs) joined by
    every pointer of data.* (hypernymy, meronymy, antonymy, similarity, ...)."""
    ids: dict = {}
    pairs = []
    for pos, fname in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        for line in (root / f"data.{fname}").read_text(encoding="latin-1").splitlines():
            if line.startswith(" "):
                continue  # the license header
            f = line.split(" | ")[0].split()
            src = _ids(ids, (pos, f[0]))
            words = int(f[3], 16)
            at = 4 + 2 * words
            for t in range(int(f[at])):
                off, tpos = f[at + 2 + 4 * t], f[at + 3 + 4 * t]
                tpos = "a" if tpos == "s" else tpos
                pairs.append((src, _ids(ids, (tpos, off))))
    return len(ids), pairs


def thesaurus_graph(path: Path) -> tuple[int, list]:
    """A LibreOffice thesaurus (MyThes; the English one from WordNet and
    other sources): every headword joined to every term of each of its
    meanings."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    ids: dict = {}
    pairs = []
    i = 0
    while i < len(lines):
        head, _, count = lines[i].rpartition("|")
        u = _ids(ids, head.lower())
        for line in lines[i + 1 : i + 1 + int(count)]:
            for term in line.split("|")[1:]:
                term = term.split(" (")[0].strip().lower()
                if term and term != head.lower():
                    pairs.append((u, _ids(ids, term)))
        i += 1 + int(count)
    return len(ids), pairs


def word_ladder_graph(path: Path, length: int) -> tuple[int, list]:
    """Knuth's word-ladder graph (The Stanford GraphBase's ``words``) on the
    lower-case ``length``-letter words of a Debian word list: two words are
    joined when they differ in one position."""
    words = sorted(
        {
            w
            for w in path.read_text().split()
            if len(w) == length and w.isalpha() and w.isascii() and w.islower()
        }
    )
    index = {w: i for i, w in enumerate(words)}
    buckets: dict = {}
    for w in words:
        for p in range(length):
            buckets.setdefault(w[:p] + "_" + w[p + 1 :], []).append(index[w])
    pairs = [
        (a, b) for group in buckets.values() for i, a in enumerate(group) for b in group[i + 1 :]
    ]
    return len(words), pairs


def doc_links_graph(root: Path) -> tuple[int, list]:
    """A crawl of an HTML documentation tree (the Python 3.11 documentation,
    ...): every HTML page, joined to every page it links to inside the tree
    (anchors dropped)."""
    import os
    import re

    href = re.compile(rb'href="([^"#?:]+\.html)')
    pages = sorted(root.rglob("*.html"))
    index = {p.resolve(): i for i, p in enumerate(pages)}
    pairs = []
    for p in pages:
        for target in href.findall(p.read_bytes()):
            q = Path(os.path.normpath(p.parent / target.decode(errors="replace"))).resolve()
            if q in index:
                pairs.append((index[p.resolve()], index[q]))
    return len(pages), pairs


def gene_ontology_graph(sqlite: Path) -> tuple[int, list]:
    """The Gene Ontology (Bioconductor's GO.db, 2022): every term joined to
    its parents (is_a, part_of, regulates) in the three ontologies."""
    import sqlite3

    db = sqlite3.connect(sqlite)
    ids: dict = {}
    pairs = []
    for onto in ("bp", "mf", "cc"):
        for a, b in db.execute(f"select _id, _parent_id from go_{onto}_parents"):
            pairs.append((_ids(ids, a), _ids(ids, b)))
    return len(ids), pairs


def debian_depends_graph() -> tuple[int, list]:
    """Debian 12's binary packages of this machine's apt lists (``apt-cache
    dumpavail``): every package joined to every package or virtual name in
    its Depends, Pre-Depends and Recommends (alternatives included)."""
    text = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True)
    ids: dict = {}
    pairs = []
    for record in text.stdout.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in record.splitlines() if ": " in line and line[0] != " "
        )
        if "Package" not in fields:
            continue
        u = _ids(ids, fields["Package"])
        for key in ("Depends", "Pre-Depends", "Recommends"):
            for alt in fields.get(key, "").split(","):
                for dep in alt.split("|"):
                    name = dep.strip().split(" ")[0].split(":")[0]
                    if name:
                        pairs.append((u, _ids(ids, name)))
    return len(ids), pairs


def _unpacked_debs(debs: tuple[str, ...], tmp: Path) -> Path:
    """Downloads the Debian packages ``debs`` into ``tmp`` (``apt-get download``,
    nothing installed) and unpacks them all into ``tmp/x``, which it returns."""
    subprocess.run(["apt-get", "download", *debs], cwd=tmp, check=True)
    for deb in tmp.glob("*.deb"):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp / "x")], check=True)
    return tmp / "x"


def prepare_heldout(dest: Path) -> None:
    """Writes dest/NAME.npz for every :data:`HELDOUT_PUBLIC` graph that needs a
    file (Debian packages downloaded and unpacked in a temporary folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        x = _unpacked_debs(HELDOUT_DEBS, Path(tmp))
        built = {
            "wordnet": wordnet_graph(x / "usr/share/wordnet"),
            "thesaurus-en": thesaurus_graph(x / "usr/share/mythes/th_en_US_v2.dat"),
            "words5-ladder": word_ladder_graph(x / "usr/share/dict/american-english", 5),
            "python-doc-links": doc_links_graph(x / "usr/share/doc/python3.11-doc/html"),
            "gene-ontology": gene_ontology_graph(next(x.rglob("GO.db/extdata/GO.sqlite"))),
            "debian-depends": debian_depends_graph(),
        }
        _write_pairs(dest, built)
        subprocess.run(["apt-get", "download", "python3-graph-tool"], cwd=tmp, check=True)
        deb = next(Path(tmp).glob("python3-graph-tool_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(Path(tmp) / "gt")], check=True)
        coll = next((Path(tmp) / "gt").rglob("graph_tool/collection"))
        for name in HELDOUT_GRAPH_TOOL:
            n, src, dst = read_gt(gzip.decompress((coll / f"{name}.gt.gz").read_bytes()))
            _save(dest / f"{name}.npz", n, src, dst)


def moon_moser(n: int, parts: int, part: int, seed: int) -> kcjax.Graph:
    """A Chung-Lu graph with a complete multipartite graph of ``parts`` parts
    of ``part`` vertices (a clique minus disjoint ``part``-cliques; the
    Moon-Moser graph for part = 3: part^parts maximal cliques, the worst
    case of pivoting)."""
    host = gen.chung_lu(n, 8.0, 2.5, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    src, dst = (np.asarray(x).astype(np.int64) for x in host.edges())
    members = rng.permutation(n)[: parts * part]
    i, j = np.triu_indices(parts * part, 1)
    keep = i // part != j // part
    lo, hi = members[i[~keep]].tolist(), members[j[~keep]].tolist()
    same = set(zip(lo, hi, strict=True))
    same |= {(b, a) for a, b in same}
    host_keep = np.array(
        [(a, b) not in same for a, b in zip(src.tolist(), dst.tolist(), strict=True)], bool
    )
    return kcjax.Graph.from_edges(
        np.concatenate([src[host_keep], members[i[keep]]]),
        np.concatenate([dst[host_keep], members[j[keep]]]),
        num_nodes=n,
    )


def many_near_cliques(n: int, count: int, size: int, seed: int) -> kcjax.Graph:
    """A Chung-Lu graph with ``count`` disjoint cliques of ``size`` vertices,
    each less a perfect matching."""
    host = gen.chung_lu(n, 6.0, 2.5, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    src, dst = (np.asarray(x).astype(np.int64) for x in host.edges())
    members = rng.permutation(n)[: count * size].reshape(count, size)
    i, j = np.triu_indices(size, 1)
    keep = ~((i % 2 == 0) & (j == i + 1))
    return kcjax.Graph.from_edges(
        np.concatenate([src, members[:, i[keep]].ravel()]),
        np.concatenate([dst, members[:, j[keep]].ravel()]),
        num_nodes=n,
    )


def lone_clique_minus_matching(n: int, size: int, seed: int) -> kcjax.Graph:
    """A Chung-Lu graph beside a component of its own: a clique of ``size``
    vertices less a perfect matching (no other neighbours, so the sorted
    candidate sizes of its roots fall by one per rank as a clique's do)."""
    host = gen.chung_lu(n, 8.0, 2.5, seed=seed)
    src, dst = (np.asarray(x).astype(np.int64) for x in host.edges())
    i, j = np.triu_indices(size, 1)
    keep = ~((i % 2 == 0) & (j == i + 1))
    return kcjax.Graph.from_edges(
        np.concatenate([src, n + i[keep]]), np.concatenate([dst, n + j[keep]]), num_nodes=n + size
    )


def _load_heldout(name: str) -> kcjax.Graph:
    return _load(name, HELDOUT_DEST)


#: name -> builder: public graphs the frozen rule was not fitted on.
HELDOUT_PUBLIC: dict[str, Callable[[], kcjax.Graph]] = {
    name: (lambda name=name: _load_heldout(name))
    for name in (
        "wordnet",
        "thesaurus-en",
        "words5-ladder",
        "python-doc-links",
        "gene-ontology",
        "debian-depends",
        *HELDOUT_GRAPH_TOOL,
    )
}

#: name -> builder: adversarial cases with new sizes and seeds (drawn here).
HELDOUT_ADVERSARIAL: dict[str, Callable[[], kcjax.Graph]] = {
    "web150k+K120h200": lambda: hidden_clique(150_000, 5.0, 120, 200, seed=71),
    "hub+400xK20": lambda: hub_cliques(60_000, 400, 20, seed=72),
    "K64-matching32": lambda: clique_minus_matching(40_000, 64, 32, seed=73),
    "K80-matching20": lambda: clique_minus_matching(40_000, 80, 20, seed=74),
    "moon-moser3x15": lambda: moon_moser(30_000, 15, 3, seed=75),
    "50xK32-matching": lambda: many_near_cliques(60_000, 50, 32, seed=76),
    "lone-K40-matching20": lambda: lone_clique_minus_matching(50_000, 40, seed=77),
}


THIRD_DEST = ROOT / ".gpu" / "auto3"
THIRD_COUNTS = ROOT / "experiments" / "results" / "cliques" / "auto_third_counts.tsv"

#: Debian packages the third set's public graphs come from (``apt-get download``).
THIRD_DEBS = ("mythes-de", "mythes-fr", "mythes-es", "wamerican")


def _thesauri(x: Path, langs: tuple[str, ...]) -> dict[str, tuple[int, list]]:
    """thesaurus-LANG -> :func:`thesaurus_graph` of each language's MyThes
    file in the unpacked packages ``x``."""
    mythes = x / "usr/share/mythes"
    return {
        f"thesaurus-{lang}": thesaurus_graph(next(mythes.glob(f"th_{lang}_*.dat")))
        for lang in langs
    }


def _write_pairs(dest: Path, built: dict[str, tuple[int, list]]) -> None:
    """dest/NAME.npz for every (n, pairs) graph of ``built``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name, (n, pairs) in built.items():
        _pairs_graph(dest / f"{name}.npz", pairs, n)


def prepare_third(dest: Path) -> None:
    """Writes dest/NAME.npz for every :data:`THIRD_PUBLIC` graph (Debian
    packages downloaded and unpacked in a temporary folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        x = _unpacked_debs(THIRD_DEBS, Path(tmp))
        built = _thesauri(x, ("de", "fr", "es"))
        words = x / "usr/share/dict/american-english"
        built["words4-ladder"] = word_ladder_graph(words, 4)
        built["words6-ladder"] = word_ladder_graph(words, 6)
        _write_pairs(dest, built)


#: name -> builder: the third set (chosen after the held-out check; no
#: threshold has seen it): public graphs from other Debian packages.
THIRD_PUBLIC: dict[str, Callable[[], kcjax.Graph]] = {
    name: (lambda name=name: _load(name, THIRD_DEST))
    for name in (
        "thesaurus-de",
        "thesaurus-fr",
        "thesaurus-es",
        "words4-ladder",
        "words6-ladder",
    )
}

#: name -> builder: the third set's adversarial cases (new sizes and seeds).
THIRD_ADVERSARIAL: dict[str, Callable[[], kcjax.Graph]] = {
    "web200k+K100h300": lambda: hidden_clique(200_000, 4.0, 100, 300, seed=81),
    "K56-matching28": lambda: clique_minus_matching(30_000, 56, 28, seed=82),
    "moon-moser4x12": lambda: moon_moser(40_000, 12, 4, seed=83),
    "hub+300xK24": lambda: hub_cliques(80_000, 300, 24, seed=84),
    "40xK40-matching": lambda: many_near_cliques(80_000, 40, 40, seed=85),
}


FOURTH_DEST = ROOT / ".gpu" / "auto4"
FOURTH_COUNTS = ROOT / "experiments" / "results" / "cliques" / "auto_fourth_counts.tsv"

#: Debian packages the fourth set's public graphs come from (``apt-get download``).
FOURTH_DEBS = (
    "mythes-it",
    "mythes-pt-pt",
    "mythes-ru",
    "mythes-pl",
    "wngerman",
    "wfrench",
    "postgresql-doc-15",
    "libstdc++-12-doc",
)


def prepare_fourth(dest: Path) -> None:
    """Writes dest/NAME.npz for every :data:`FOURTH_PUBLIC` graph (Debian
    packages downloaded and unpacked in a temporary folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        x = _unpacked_debs(FOURTH_DEBS, Path(tmp))
        built = _thesauri(x, ("it", "pt", "ru", "pl"))
        built["words5-ladder-de"] = word_ladder_graph(x / "usr/share/dict/ngerman", 5)
        built["words5-ladder-fr"] = word_ladder_graph(x / "usr/share/dict/french", 5)
        docs = x / "usr/share/doc"
        built["postgresql-doc-links"] = doc_links_graph(docs / "postgresql-doc-15/html")
        built["libstdcxx-doc-links"] = doc_links_graph(docs / "gcc-12-base/libstdc++")
        _write_pairs(dest, built)


#: name -> builder: the fourth set (chosen after the rule was refitted to the
#: pivot counter that splits its heaviest roots; no threshold has seen it):
#: four more LibreOffice thesauri, German and French word ladders, and two
#: crawls of HTML documentation (PostgreSQL's manual, libstdc++'s Doxygen
#: pages: web-like graphs with navigation hubs).
FOURTH_PUBLIC: dict[str, Callable[[], kcjax.Graph]] = {
    name: (lambda name=name: _load(name, FOURTH_DEST))
    for name in (
        "thesaurus-it",
        "thesaurus-pt",
        "thesaurus-ru",
        "thesaurus-pl",
        "words5-ladder-de",
        "words5-ladder-fr",
        "postgresql-doc-links",
        "libstdcxx-doc-links",
    )
}

#: name -> builder: the fourth set's adversarial cases (new sizes and seeds).
FOURTH_ADVERSARIAL: dict[str, Callable[[], kcjax.Graph]] = {
    "web250k+K130h150": lambda: hidden_clique(250_000, 4.5, 130, 150, seed=91),
    "hub+500xK16": lambda: hub_cliques(70_000, 500, 16, seed=92),
    "K72-matching36": lambda: clique_minus_matching(40_000, 72, 36, seed=93),
    "moon-moser3x18": lambda: moon_moser(30_000, 18, 3, seed=94),
    "30xK48-matching": lambda: many_near_cliques(80_000, 30, 48, seed=95),
    "lone-K50-matching25": lambda: lone_clique_minus_matching(50_000, 50, seed=96),
}


#: name -> builder of every graph of every set.
EVERY: dict[str, Callable[[], kcjax.Graph]] = (
    PUBLIC
    | ADVERSARIAL
    | HELDOUT_PUBLIC
    | HELDOUT_ADVERSARIAL
    | THIRD_PUBLIC
    | THIRD_ADVERSARIAL
    | FOURTH_PUBLIC
    | FOURTH_ADVERSARIAL
)


def count_rows(
    names: list[str], ks: list[int], cpu_budget: float
) -> list[tuple[str, int, str, str]]:
    """(graph, k, count, checked_by) per graph and k, on the CPU: KCMiner and
    pivoting (both must agree), a method dropped from the k after one that
    took longer than ``cpu_budget`` seconds."""
    rows = []
    for name in names:
        graph = EVERY[name]()
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
    held = sub.add_parser("prepare-heldout", help="fetch the held-out public graphs into --dest")
    held.add_argument("--dest", type=Path, default=HELDOUT_DEST)
    third = sub.add_parser("prepare-third", help="fetch the third set's public graphs")
    third.add_argument("--dest", type=Path, default=THIRD_DEST)
    fourth = sub.add_parser("prepare-fourth", help="fetch the fourth set's public graphs")
    fourth.add_argument("--dest", type=Path, default=FOURTH_DEST)
    cnt = sub.add_parser("counts", help="exact counts on the CPU, both methods")
    cnt.add_argument("--names", nargs="+", default=None)
    cnt.add_argument("--ks", default="3-12")
    cnt.add_argument("--cpu-budget", type=float, default=60.0)
    cnt.add_argument("--out", type=Path, default=None, help="default: the set's counts file")
    cnt.add_argument("--heldout", action="store_true", help="the held-out sets")
    cnt.add_argument("--third", action="store_true", help="the third set")
    cnt.add_argument("--fourth", action="store_true", help="the fourth set")
    args = p.parse_args(argv)
    if args.cmd == "prepare-heldout":
        prepare_heldout(args.dest)
        return 0
    if args.cmd == "prepare-third":
        prepare_third(args.dest)
        return 0
    if args.cmd == "prepare-fourth":
        prepare_fourth(args.dest)
        return 0
    if args.cmd == "prepare":
        fetch_graph_tool(args.dest)
        _models(args.dest)
        return 0
    lo, _, hi = args.ks.partition("-")
    ks = list(range(int(lo), int(hi or lo) + 1))
    if args.fourth:
        known, default_out = FOURTH_PUBLIC | FOURTH_ADVERSARIAL, FOURTH_COUNTS
    elif args.third:
        known, default_out = THIRD_PUBLIC | THIRD_ADVERSARIAL, THIRD_COUNTS
    elif args.heldout:
        known, default_out = HELDOUT_PUBLIC | HELDOUT_ADVERSARIAL, HELDOUT_COUNTS
    else:
        known, default_out = PUBLIC | ADVERSARIAL, COUNTS
    args.out = args.out or default_out
    names = args.names or list(known)
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
