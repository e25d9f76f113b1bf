"""Per-launch SASS summary of an Nsight Compute source export.

    python experiments/tools/ncu_source.py source_sass.csv[.gz] [--out s.json] [--top 40]

Reads ``ncu -i REPORT --page source --csv --print-source sass`` (gpu_check.sh
writes it with NCU_SOURCE=1; ncu prints each launch's table twice, and the
repeat is dropped) and prints, per launch, its warp instructions executed, its
opcode mix, its hottest instructions (offset from the kernel's first
instruction, times executed, SASS) and its hottest basic blocks: runs of
consecutive instructions executed equally often, ranked by their share of
the warp-stall samples (where the time went) beside their share of the
instructions. --out writes the same as JSON. Opcode mixes of two launches
subtract, e.g. the heavy-unit kernel against the part of static_l2's warp
kernel that ran the same tasks (docs/tuning.md).
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ncu_table import kernel_name  # noqa: E402


def launches(text: str) -> list[dict]:
    """[{kernel, rows: [(offset, executed, sass, samples)]}] in export order, repeats dropped.

    ``samples``: the instruction's warp-stall samples (0 where the export has none).
    """
    out: list[dict] = []
    header: list[str] = []
    for line in text.splitlines():
        if line.startswith('"Kernel Name"'):
            name = next(csv.reader([line]))[1]
            out.append({"kernel": kernel_name(name), "rows": []})
            continue
        if line.startswith('"Address"'):
            header = next(csv.reader([line]))
            continue
        if not out or not header or not line.strip():
            continue
        # The header line ends in a comma (one empty name more than a row has).
        cells = dict(zip(header, next(csv.reader([line])), strict=False))
        executed = int(cells["Instructions Executed"])
        samples = int(cells.get("Warp Stall Sampling (All Samples)") or 0)
        out[-1]["rows"].append(
            (int(cells["Address"], 16), executed, cells["Source"].strip(), samples)
        )
    unique: list[dict] = []
    for launch in out:
        base = launch["rows"][0][0] if launch["rows"] else 0
        launch["rows"] = [(a - base, n, s, w) for a, n, s, w in launch["rows"]]
        if not unique or launch != unique[-1]:
            unique.append(launch)
    return unique


def opcode(sass: str) -> str:
    """The SASS mnemonic without predicate and modifiers (``@!P0 LDG.E R2`` -> ``LDG``)."""
    body = re.sub(r"^@!?U?P\w+\s+", "", sass)
    return body.split()[0].split(".")[0] if body else "?"


def blocks(rows: list[tuple], top: int) -> list[dict]:
    """The ``top`` basic blocks (runs of consecutive rows executed equally often) by samples."""
    runs: list[list[tuple]] = []
    for row in rows:
        if runs and runs[-1][-1][1] == row[1]:
            runs[-1].append(row)
        else:
            runs.append([row])
    samples = sum(r[3] for r in rows) or 1
    executed = sum(r[1] for r in rows) or 1
    ranked = sorted(runs, key=lambda b: (-sum(r[3] for r in b), -sum(r[1] for r in b)))
    return [
        {
            "offset": hex(b[0][0]),
            "length": len(b),
            "executed": b[0][1],
            "samples_share": round(sum(r[3] for r in b) / samples, 4),
            "instructions_share": round(sum(r[1] for r in b) / executed, 4),
            "opcodes": " ".join(opcode(r[2]) for r in b),
        }
        for b in ranked[:top]
    ]


def summary(launch: dict, top: int) -> dict:
    mix: collections.Counter = collections.Counter()
    for _, n, sass, _ in launch["rows"]:
        mix[opcode(sass)] += n
    hottest = sorted(launch["rows"], key=lambda r: -r[1])[:top]
    return {
        "kernel": launch["kernel"],
        "instructions": sum(mix.values()),
        "opcodes": dict(mix.most_common()),
        "hottest": [{"offset": hex(a), "executed": n, "sass": s} for a, n, s, _ in sorted(hottest)],
        "blocks": blocks(launch["rows"], top),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", type=Path)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--top", type=int, default=40)
    args = p.parse_args(argv)
    raw = args.csv.read_bytes()
    text = (gzip.decompress(raw) if args.csv.suffix == ".gz" else raw).decode()
    table = [summary(launch, args.top) for launch in launches(text)]
    for i, s in enumerate(table):
        mix = " ".join(f"{op}={n:.2e}" for op, n in list(s["opcodes"].items())[:8])
        print(f"{i} {s['kernel']} {s['instructions']:.3e} instructions: {mix}")
        for b in s["blocks"][:5]:
            print(
                f"    {b['offset']:>8s} samples {b['samples_share']:6.1%}"
                f" instructions {b['instructions_share']:6.1%}  {b['opcodes'][:70]}"
            )
    if args.out:
        args.out.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
