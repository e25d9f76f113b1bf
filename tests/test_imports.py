"""experiments/ and tests/ use kcjax's public API and kcjax.experimental only.

Public: the names of ``kcjax.__all__`` (and ``kcjax.__version__``), the
modules kcjax.generators, kcjax.parallel, kcjax.nx, kcjax.cli and
kcjax.experimental (their names without a leading underscore). Anything
else (``kcjax._native``, ``kcjax.match.count``, ``kcjax.cli._k_values``, ...)
is private: a refactor may move it, and the benchmark that imported it breaks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kcjax

ROOT = Path(__file__).resolve().parents[1]
#: Modules whose names (without a leading underscore) are public.
PUBLIC_MODULES = frozenset(
    {"kcjax.generators", "kcjax.parallel", "kcjax.nx", "kcjax.cli", "kcjax.experimental"}
)
#: What ``kcjax.<name>`` may be: a public name or a public module.
PUBLIC_NAMES = frozenset(kcjax.__all__) | {m.split(".")[1] for m in PUBLIC_MODULES}

FIX = (
    "import it from kcjax.experimental instead (the measurement interface; not stable API). "
    "If it is not there, add it to _EXPORTS in kcjax/experimental.py, under a name that "
    "says its family, and list it in the module docstring's groups. A test that must "
    "replace a private name names its home as a string: "
    'monkeypatch.setattr("kcjax.<family>.<module>.<name>", value) (patching kcjax.experimental '
    "changes nothing the library calls)."
)


def _private(module: str, name: str | None) -> str | None:
    """The private thing ``from module import name`` (name None: ``import module``)
    reaches, or None if it is public."""
    if module == "kcjax":
        if name is None or name in PUBLIC_NAMES or (name.startswith("__") and name.endswith("__")):
            return None
        return f"kcjax.{name}"
    if module == "kcjax.graph.generators":
        module = "kcjax.generators"
    if module in PUBLIC_MODULES:
        return None if name is None or not name.startswith("_") else f"{module}.{name}"
    return module if name is None else f"{module}.{name}"


def _attribute_chain(node: ast.Attribute) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def private_uses(path: Path) -> list[str]:
    """``path:line: what`` for every private kcjax import or attribute in one file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[int, str]] = []
    kcjax_names: set[str] = set()  # local names bound to the kcjax package
    experimental_names: set[str] = set()  # and to kcjax.experimental
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name != "kcjax" and not alias.name.startswith("kcjax."):
                    continue
                if alias.name == "kcjax" or alias.asname is None:
                    kcjax_names.add(alias.asname or "kcjax")
                elif alias.name == "kcjax.experimental":
                    experimental_names.add(alias.asname)
                what = _private(alias.name, None)
                if what:
                    found.append((node.lineno, what))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module != "kcjax" and not node.module.startswith("kcjax."):
                continue
            for alias in node.names:
                if (node.module, alias.name) == ("kcjax", "experimental"):
                    experimental_names.add(alias.asname or alias.name)
                what = _private(node.module, alias.name)
                if what:
                    found.append((node.lineno, what))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "setattr"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in experimental_names
        ):
            found.append((node.lineno, "a patch of kcjax.experimental (it reaches no caller)"))
        if not isinstance(node, ast.Attribute):
            continue
        chain = _attribute_chain(node)
        if not chain or chain[0] not in kcjax_names or len(chain) < 2:
            continue
        first = chain[1]
        if first.startswith("__") and first.endswith("__"):
            continue
        if first not in PUBLIC_NAMES:
            found.append((node.lineno, f"kcjax.{first}"))
        elif f"kcjax.{first}" in PUBLIC_MODULES and len(chain) > 2 and chain[2].startswith("_"):
            found.append((node.lineno, f"kcjax.{first}.{chain[2]}"))
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return sorted({f"{rel}:{line}: {what}" for line, what in found})


def test_experiments_and_tests_import_only_public_kcjax():
    files = sorted([*(ROOT / "experiments").rglob("*.py"), *(ROOT / "tests").rglob("*.py")])
    assert len(files) > 20
    bad = [use for path in files for use in private_uses(path)]
    assert not bad, "private kcjax code used outside kcjax/:\n  " + "\n  ".join(bad) + "\n" + FIX


def test_the_lint_sees_each_kind_of_private_use(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import kcjax\n"
        "import kcjax.match.count\n"
        "from kcjax import _wide, count_cliques, generators\n"
        "from kcjax.cliques import auto\n"
        "from kcjax.cli import main, _k_values\n"
        "from kcjax.experimental import auto_method\n"
        "from kcjax.nx import from_networkx\n"
        "kcjax.graph.orient.max_out_degree\n"
        "kcjax._native.call\n"
        "kcjax.cli._k_values\n"
        "kcjax.count_cliques\n"
        "kcjax.__version__\n"
        "from kcjax import experimental as auto\n"
        "def test(monkeypatch):\n"
        "    monkeypatch.setattr(auto, 'AUTO_SAFE_WORK', 0)\n"
        "    monkeypatch.setattr('kcjax.cliques.auto.AUTO_SAFE_WORK', 0)\n"
    )
    got = [use.split(": ", 1)[1] for use in private_uses(probe)]
    assert sorted(got) == sorted(
        [
            "kcjax.match.count",
            "kcjax._wide",
            "kcjax.cliques.auto",
            "kcjax.cli._k_values",
            "kcjax.graph",
            "kcjax._native",
            "kcjax.cli._k_values",
            "a patch of kcjax.experimental (it reaches no caller)",
        ]
    )
