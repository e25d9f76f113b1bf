"""Every shared graph against ../shared/data/bfs/bfs_truth.tsv (five sources each)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from reference import DATA_DIR

import kcjax

TRUTH = DATA_DIR.parent / "bfs" / "bfs_truth.tsv"
# Quick enough for the default run; the rest are marked slow.
QUICK = {"ego-Facebook", "wiki-Vote", "email-Enron"}


@functools.cache
def _truth() -> dict[str, list[tuple[int, int, int, int, list[int]]]]:
    rows: dict[str, list] = {}
    for line in TRUTH.read_text().splitlines()[1:]:
        graph, source, reached, depth, dist_sum, levels, _ = line.split("\t")
        rows.setdefault(graph, []).append(
            (
                int(source),
                int(reached),
                int(depth),
                int(dist_sum),
                [int(x) for x in levels.split(",")],
            )
        )
    return rows


def _names() -> list:
    if not TRUTH.exists():
        return [pytest.param("absent", marks=pytest.mark.skip(reason=f"{TRUTH} is absent"))]
    return [
        name if name in QUICK else pytest.param(name, marks=pytest.mark.slow)
        for name in sorted(_truth())
    ]


def summary(dist: np.ndarray) -> tuple[int, int, int, list[int]]:
    """(reached, depth, dist_sum, level_sizes) of one distance row."""
    reached = dist[dist >= 0]
    return (
        int(reached.size),
        int(reached.max()),
        int(reached.sum()),
        np.bincount(reached).tolist(),
    )


@pytest.mark.parametrize("name", _names())
def test_ground_truth(name, shared_graph):
    graph = shared_graph(name)
    rows = _truth()[name]
    sources = np.array([r[0] for r in rows], np.int32)
    batched = kcjax.bfs(graph, sources=sources)
    single = kcjax.bfs(graph, sources=sources, batch="each")
    for i, (source, reached, depth, dist_sum, levels) in enumerate(rows):
        expect = (reached, depth, dist_sum, levels)
        assert summary(np.asarray(batched.distances[i])) == expect, (name, source)
        np.testing.assert_array_equal(single.distances[i], batched.distances[i])
        assert int(single.depth[i]) == depth
        kcjax.validate_bfs_tree(graph, source, (single.distances[i], single.parents[i]))
        kcjax.validate_bfs_tree(graph, source, (batched.distances[i], batched.parents[i]))
    if name == "ego-Facebook":
        dense = kcjax.bfs(graph, int(sources[0]), method="dense", parents=False)
        np.testing.assert_array_equal(dense.distances, batched.distances[0])
