"""Per-kernel table of an Nsight Compute CSV (``ncu --csv --metrics ...``).

    python experiments/tools/ncu_table.py ncu.csv [--out ncu.json]

Prints one row per profiled kernel launch (in launch order) with every
metric the CSV holds; --out writes the same rows as JSON.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
from pathlib import Path


def kernel_name(demangled: str) -> str:
    """A kernel's short name: ``ns::(anonymous namespace)::HeavyKernel(int)`` -> ``HeavyKernel``."""
    name = demangled.replace("(anonymous namespace)::", "")
    return re.sub(r"\(.*", "", name).split("::")[-1]


def rows(text: str) -> list[dict]:
    """[{id, kernel, metric: value, ...}] from ncu's CSV (log lines skipped)."""
    start = text.find('"ID"')
    if start < 0:
        return []
    launches: dict[str, dict] = {}
    for r in csv.DictReader(io.StringIO(text[start:])):
        row = launches.setdefault(
            r["ID"], {"id": int(r["ID"]), "kernel": kernel_name(r["Kernel Name"])}
        )
        value = r["Metric Value"].replace(",", "")
        try:
            row[r["Metric Name"]] = float(value)
        except ValueError:
            row[r["Metric Name"]] = value
    return sorted(launches.values(), key=lambda x: x["id"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", type=Path)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    table = rows(args.csv.read_text())
    metrics = sorted({m for r in table for m in r} - {"id", "kernel"})
    print("id kernel " + " ".join(metrics))
    for r in table:
        cells = " ".join(str(r.get(m, "-")) for m in metrics)
        print(f"{r['id']} {r['kernel'][:40]} {cells}")
    if args.out:
        args.out.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
