"""networkx's own tests for the functions kcjax serves, run through the backend.

networkx 3.6's conftest switches to backend testing when NETWORKX_TEST_BACKEND
names an installed backend: every dispatchable call converts its graphs with
``convert_from_nx`` and runs the backend (``can_run`` declines fall back to
networkx with NETWORKX_FALLBACK_TO_NX); results that are graphs are compared
with networkx's. The selected modules run in one subprocess (~1 minute on 2
cores); the known exceptions are kcjax.nx.testing.XFAIL (strict xfails).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

nx = pytest.importorskip("networkx")

#: networkx test modules covering the served functions.
MODULES = (
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.tests.test_clique",
    "networkx.algorithms.tests.test_max_weight_clique",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_generic",
    "networkx.algorithms.tests.test_distance_measures",
)

#: Functions each run must have served at least once (else the suite did not dispatch).
MUST_SERVE = (
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
    "bfs_edges",
    "bfs_tree",
    "bfs_layers",
    "bfs_predecessors",
    "bfs_successors",
    "descendants_at_distance",
    "single_source_shortest_path_length",
    "single_target_shortest_path_length",
    "all_pairs_shortest_path_length",
    "shortest_path_length",
    "eccentricity",
    "diameter",
)


def _backend_installed() -> bool:
    from importlib.metadata import entry_points

    return bool(entry_points(group="networkx.backends", name="kcjax"))


@pytest.mark.slow
@pytest.mark.skipif(
    not _backend_installed(), reason="kcjax's networkx entry points are not installed"
)
def test_networkx_suite_through_kcjax(tmp_path):
    counts = tmp_path / "counts.json"
    env = dict(os.environ)
    env.update(
        NETWORKX_TEST_BACKEND="kcjax",
        NETWORKX_FALLBACK_TO_NX="True",
        KCJAX_NX_COUNTS=str(counts),
        PYTHONPATH=os.pathsep.join(
            [str(Path(__file__).parent), *filter(None, [env.get("PYTHONPATH")])]
        ),
        JAX_PLATFORMS=env.get("JAX_PLATFORMS", "cpu"),
    )
    cmd = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_count_plugin",
        "-o", "addopts=", "-rxX", "--pyargs", *MODULES,
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    tail = proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    summary = re.search(r"(\d+) passed", proc.stdout)
    assert summary and int(summary.group(1)) > 700, tail
    assert "failed" not in proc.stdout.splitlines()[-1], tail
    served = json.loads(counts.read_text())["served"]
    missing = [name for name in MUST_SERVE if not served.get(name)]
    assert not missing, f"never dispatched to kcjax: {missing}\n{tail}"
