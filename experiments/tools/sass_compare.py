"""Compares the SASS of every CUDA kernel in two source trees, on a machine without a GPU.

Each tree's ``ffi/cuda/**/*.cu`` is compiled for sm_90 with the build's
flags (CMakeLists.txt) into cubins, disassembled with ``nvdisasm``, and
every function's instructions are compared with the same function of the
other tree. A function is matched by its demangled name with the
namespaces removed (``kcjax::``, a family's namespace, anonymous
namespaces), so moving code between files or namespaces compares as
unchanged; inside a body, branch labels are renumbered in order of
appearance, called functions named the same way and runs of blanks
collapsed.

A restructure that leaves every kernel's SASS identical cannot change its
speed; a kernel that differs is listed with both instruction counts and
needs a device measurement.

    python experiments/tools/sass_compare.py --base /tmp/base --tree . \\
        --nvdisasm /path/to/nvdisasm --out sass.json

``--base`` is a source tree or a file written by ``--save-base`` (the base's
normalized SASS, so a series of comparisons compiles the base once).

``nvdisasm`` ships in the CUDA toolkit and in the ``nvidia-cuda-nvdisasm``
wheel (``nvidia/cu13/bin/nvdisasm``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_FLAGS = ["-std=c++17", "-O3", "--expt-relaxed-constexpr", "-arch=sm_90", "-DKCJAX_WITH_CUDA=1"]
_SECTION = re.compile(r"^\s*\.section\s+\.text\.(\S+?),")
_LABEL = re.compile(r"\.L_x_\d+")
_SYMBOL = re.compile(r"_Z[A-Za-z0-9_]+")
_NAMESPACES = re.compile(
    r"\(anonymous namespace\)::|kcjax::(?:cliques::|bfs::|truss::|match::|cuda::)?"
)


def _ffi_include() -> str:
    import jax.ffi

    return jax.ffi.include_dir()


def _cubin(tree: Path, source: Path, out_dir: Path, include: str) -> Path:
    cubin = out_dir / (str(source.relative_to(tree)).replace("/", "__") + ".cubin")
    subprocess.run(
        ["nvcc", *_FLAGS, f"-I{tree / 'ffi/include'}", f"-I{include}", "-cubin", "-o", cubin]
        + [source],
        check=True,
        capture_output=True,
    )
    return cubin


def _demangle(names: set[str]) -> dict[str, str]:
    ordered = sorted(names)
    done = subprocess.run(
        ["c++filt"], input="\n".join(ordered), capture_output=True, text=True, check=True
    )
    demangled = done.stdout.splitlines()
    return {m: _NAMESPACES.sub("", d) for m, d in zip(ordered, demangled, strict=True)}


def _functions(text: str) -> dict[str, list[str]]:
    """Mangled function name -> its instruction lines (offsets and labels kept raw)."""
    functions: dict[str, list[str]] = {}
    body: list[str] | None = None
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            body = functions.setdefault(section.group(1), [])
            continue
        if body is not None and "/*" in line and ";" in line:
            body.append(line.split("*/", 1)[1].strip())
    return functions


def _normalized(body: list[str], names: dict[str, str]) -> list[str]:
    labels: dict[str, str] = {}

    def label(m: re.Match) -> str:
        return labels.setdefault(m.group(0), f"L{len(labels)}")

    out = []
    for line in body:
        line = _LABEL.sub(label, line)
        line = _SYMBOL.sub(lambda m: names.get(m.group(0), m.group(0)), line)
        out.append(" ".join(line.split()))  # the disassembler pads by name length
    return out


def tree_sass(tree: Path, nvdisasm: str, jobs: int) -> dict[str, dict]:
    """Normalized kernel name -> {"file", "instructions", "body"} for every .cu of a tree."""
    include = _ffi_include()
    sources = sorted((tree / "ffi/cuda").rglob("*.cu"))
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as pool:
        cubins = list(pool.map(lambda s: _cubin(tree, s, Path(tmp), include), sources))
        raw = {}
        for source, cubin in zip(sources, cubins, strict=True):
            text = subprocess.run(
                [nvdisasm, "-c", cubin], capture_output=True, text=True, check=True
            ).stdout
            for name, body in _functions(text).items():
                raw[name] = (str(source.relative_to(tree)), body)
    mangled = set(raw)
    for _, body in raw.values():
        for line in body:
            mangled.update(_SYMBOL.findall(line))
    names = _demangle(mangled)
    kernels: dict[str, dict] = {}
    for name, (file, body) in raw.items():
        key = names[name]
        if key in kernels:
            raise SystemExit(f"two functions normalize to {key!r}: rename one")
        kernels[key] = {"file": file, "body": _normalized(body, names)}
    return kernels


def compare(base: dict[str, dict], tree: dict[str, dict]) -> list[dict]:
    rows = []
    for name in sorted(set(base) | set(tree)):
        b, t = base.get(name), tree.get(name)
        row = {
            "kernel": name,
            "base_file": b and b["file"],
            "tree_file": t and t["file"],
            "base_instructions": b and len(b["body"]),
            "tree_instructions": t and len(t["body"]),
        }
        if b is None or t is None:
            row["status"] = "only in base" if t is None else "only in tree"
        else:
            row["status"] = "identical" if b["body"] == t["body"] else "differs"
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base", type=Path, required=True, help="the old source tree, or a --save-base file"
    )
    parser.add_argument("--save-base", type=Path, help="write the base's normalized SASS here")
    parser.add_argument("--tree", type=Path, default=Path("."), help="the new source tree")
    parser.add_argument("--nvdisasm", default=shutil.which("nvdisasm") or "nvdisasm")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="write every row as JSON")
    parser.add_argument("--note", default="", help="what the two trees are, kept in --out")
    args = parser.parse_args(argv)
    if args.base.is_file():
        base = json.loads(args.base.read_text())
    else:
        base = tree_sass(args.base.resolve(), args.nvdisasm, args.jobs)
    if args.save_base:
        args.save_base.write_text(json.dumps(base))
    tree = tree_sass(args.tree.resolve(), args.nvdisasm, args.jobs)
    rows = compare(base, tree)
    if args.out:
        result = {"note": args.note, "flags": _FLAGS, "rows": rows}
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
        if row["status"] != "identical":
            print(
                f"{row['status']:>12}  {row['kernel'][:100]}  "
                f"({row['base_instructions']} -> {row['tree_instructions']} instructions)"
            )
    print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 0 if set(counts) <= {"identical"} else 1


if __name__ == "__main__":
    sys.exit(main())
