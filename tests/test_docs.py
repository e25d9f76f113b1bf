"""What the docs promise a new user, checked against the project itself."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _section(text: str, start: str, stop: str) -> str:
    return text[text.index(start) : text.index(stop, text.index(start))]


def test_install_outside_the_checkout_names_the_build_requirements():
    """``pip install --no-build-isolation .`` installs no build requirement:
    the README and BUILD.md must name every one but jax (which they assume)."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    names = {re.split(r"[<>=!~ \[]", r, maxsplit=1)[0] for r in requires} - {"jax"}
    assert names  # scikit-build-core, pybind11
    readme = _section((ROOT / "README.md").read_text(), "Outside the checkout", "## A tour")
    build = _section((ROOT / "BUILD.md").read_text(), "## Why `--no-build-isolation`", "## Options")
    for text in (readme, build):
        install = next(line for line in text.splitlines() if line.startswith("pip install "))
        assert all(name in install for name in names), install


def test_every_readme_file_says_where_it_comes_from():
    """The labeled-matching tour loads a file the checkout does not have: the
    README names where to get it."""
    readme = (ROOT / "README.md").read_text()
    tour = _section(readme, "## A tour of labeled subgraph matching", "## From networkx")
    assert 'load_labeled("hprd.graph.gz")' in tour
    assert "github.com/RapidsAtHKUST/SubgraphMatching" in tour


def test_cli_doc_states_the_guarantees():
    doc = (ROOT / "docs" / "cli.md").read_text()
    for promise in (
        "An output file is one complete result or absent",
        "Inputs are never overwritten",
        "Memory and time follow the graph",
    ):
        assert promise in doc
