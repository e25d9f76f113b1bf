"""What a device-side loop costs on the GPU: ``lax.while_loop`` against unrolled rounds.

The plan's filter rounds are unrolled (a fixed number) so that no loop waits
on the host. This measures, with the profiler's device span (median of
``--repeats``), one round-sized body (a scatter-add and a compare over an
n x q table, n = 10240, q = 16: hprd's shape) repeated r times, unrolled and
inside ``lax.while_loop``, and a while loop whose exit depends on the data
(stops after ``stop`` rounds): the span per round of each and the gap a
while iteration adds.

    python experiments/match/loop_cost.py
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from devtime import device_times  # noqa: E402

N, Q, E = 10240, 16, 81920


def _body(cand: jax.Array, rows: jax.Array, cols: jax.Array) -> jax.Array:
    upd = cand[cols].astype(jnp.int32)
    has = jnp.zeros((N, Q), jnp.int32).at[rows].add(upd) > 0
    return cand & (has | (jnp.sum(has, axis=1, keepdims=True) > Q // 2))


@functools.partial(jax.jit, static_argnames="r")
def unrolled(cand, rows, cols, r: int):
    for _ in range(r):
        cand = _body(cand, rows, cols)
    return jnp.sum(cand)


@functools.partial(jax.jit, static_argnames="r")
def while_fixed(cand, rows, cols, r: int):
    def body(s):
        i, c = s
        return i + 1, _body(c, rows, cols)

    return jnp.sum(jax.lax.while_loop(lambda s: s[0] < r, body, (0, cand))[1])


@functools.partial(jax.jit, static_argnames="r")
def while_fixpoint(cand, rows, cols, stop, r: int):
    def body(s):
        i, c, _ = s
        new = _body(c, rows, cols)
        return i + 1, new, (i + 1 < stop) & jnp.any(new != c)

    return jnp.sum(
        jax.lax.while_loop(lambda s: (s[0] < r) & s[2], body, (0, cand, jnp.bool_(True)))[1]
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=20)
    a = p.parse_args(argv)
    key = jax.random.PRNGKey(0)
    rows = jnp.sort(jax.random.randint(key, (E,), 0, N))
    cols = jax.random.randint(jax.random.fold_in(key, 1), (E,), 0, N)
    cand = jax.random.bernoulli(jax.random.fold_in(key, 2), 0.9, (N, Q))
    print(f"{'variant':24s} {'rounds':>6s} {'span_us':>9s} {'per_round_us':>12s}")
    for name, fn in (
        ("unrolled", lambda r: unrolled(cand, rows, cols, r=r)),
        ("while_fixed", lambda r: while_fixed(cand, rows, cols, r=r)),
        ("while_fixpoint(stop=3)", lambda r: while_fixpoint(cand, rows, cols, 3, r=r)),
    ):
        for r in (1, 6):
            call = functools.partial(fn, r)
            jax.block_until_ready(call())
            span = max(v["span_s"] for v in device_times(call, a.repeats).values())
            print(f"{name:24s} {r:6d} {span * 1e6:9.1f} {span * 1e6 / r:12.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
