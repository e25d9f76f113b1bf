"""Pure-JAX k-clique counting over dense bitmap spaces (no custom call).

A research baseline beside the FFI kernels: the same exact counts from plain
``jnp``/``lax`` ops, so it runs on any JAX backend and can be compared with
dense-array formulations.

Tasks. A task is a DAG vertex ``u`` with ``d = |N+(u)| >= 2``. Its bitmap
space is the subgraph induced by ``C = N+(u)`` as uint32[D, W] rows (``D >=
d`` the task's bucket, ``W = ceil(D / 32)``): bit b of row a is set iff
``C[a] -> C[b]``. Vertex tasks, not edge tasks, because the d edge tasks of
``u`` come for free: row a *is* the candidate bitmap of edge ``(u, C[a])``.
One space of d (d - 1) / 2 membership tests serves them all, where edge
tasks would need a compacted ``N+(u) ∩ N+(v)`` and a space per edge. The
cost is a row width of ``|N+(u)|`` rather than ``|N+(u) ∩ N+(v)|`` bits: the
same single word for every task of out-degree <= 32 (most tasks on sparse
graphs). Construction does its D (D - 1) / 2 tests by binary search in the
CSR rows, so its work is the sum of D^2 over tasks; that is why the default
buckets start at 8 (with 32 as the smallest, construction alone took longer
than the whole count now takes on email-Enron).

Search. A row of the stack holds a clique Q of a task (q vertices) and the
bitmap ``cur`` of its candidates not yet expanded. Every step takes the
lowest set bits of the top rows, P pairs ``(row, bit)`` in all (rows emptied
by that leave the stack; the last one keeps its higher bits), and for each
computes ``child = cur & space[bit]``, the candidates of a (q+1)-clique
(above ``bit`` only: rows of the sorted DAG are upper triangular). Its
popcount is the number of (q+2)-cliques through it; non-empty children that
lead to sizes still wanted are pushed as rows, empty ones dropped. In
one-word buckets (D <= 32) the last level is counted densely instead
(``sum_j popcount(child & space[j])`` over the bits j of the child, a
[P, D] AND) and never pushed. A task starts as one root row: Q = {u}, cur =
all of C. Pairs are never materialized, only rows: apart from that dense
last level, a step costs O(P * W), not O(P * D).

Memory bound. Pairs come off the top and children go on in order, so the
stack stays sorted by level, and the rows of one level q >= 2 are all pushed
by one step: at most P per level. A batch of T tasks of bucket D therefore
holds its uint32[T, D, W] spaces, at most ``T + (depth - 3) * P`` stack rows
of W + 2 words (``P = _STEP_BITS / D``; depth: the static level bound of
``_depth``), and construction temporaries of ``_BUILD_TESTS`` tests.
``max_batch_words`` bounds ``T * D * W``; the loop cannot overflow.

Exactness. One step adds at most ``P * D`` to any size (``P * D^2 = 2^23``
with the dense last level), far below 2^31; totals are 128-bit little-endian
uint32 limbs with carry propagation (no x64).

Eager and jitted parts. With a concrete DAG, :func:`count_cliques_dense`
buckets and batches the tasks on the host (NumPy on the out-degrees) and pads
the CSR and the batch sizes to powers of two (fewer compilations); each batch
runs two jitted kernels with static shapes (construction, then the
``lax.while_loop`` search) and the limbs are summed on the device, so the
host does not wait between batches. kmax and the search steps are traced
scalars: one compilation per (batch size, bucket) serves every kmax up to
the static depth (16 or more). With traced arrays (inside ``jax.jit``) the
whole count is one program instead: tasks sorted by out-degree on the device
and a ``lax.while_loop`` over batches whose bucket ``lax.switch`` picks, up
to a static out-degree bound.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax._args import as_int
from kcjax.graph.orient import DAG
from kcjax.graph.tasks import size_classes

#: Default task buckets: the bitmap-space sizes D.
DEFAULT_BUCKETS: tuple[int, ...] = (8, 16, 32, 64, 128, 256, 512, 1024)
#: Default bound on the uint32 words of one batch's bitmap spaces (16 MiB).
DEFAULT_BATCH_WORDS = 1 << 22
#: Pairs per search step: ``P = _STEP_BITS // D`` (tuned on CPU).
_STEP_BITS = 1 << 18
#: Largest bucket whose last level is counted densely (one-word rows: measured
#: faster at 32 on CPU, slower at 64).
_DENSE_LAST = 32
#: Membership tests per chunk of the space construction (bounds its temporaries).
_BUILD_TESTS = 1 << 20
#: Smallest padded batch, in membership tests (T * D * D).
_MIN_BATCH_TESTS = 1 << 18
#: Membership tests per batch in the traced program, which cannot size batches to the data.
_TRACED_TESTS = 1 << 22
#: Smallest padded CSR length (small graphs share compiled kernels).
_MIN_CSR = 1 << 12
#: Smallest compiled stack depth (one kernel serves every kmax up to it).
_MIN_DEPTH = 16
_INT32_MAX = np.iinfo(np.int32).max


def count_cliques_dense(
    dag: DAG,
    kmax: int,
    *,
    bucket_sizes: Sequence[int] = DEFAULT_BUCKETS,
    max_batch_words: int = DEFAULT_BATCH_WORDS,
    max_out_degree: int | None = None,
) -> jax.Array:
    """Counts s-cliques for s = 3..kmax with jnp ops only; exact.

    Eager for a concrete ``dag`` (host bucketing, jitted kernels); one traced
    program when ``dag``'s arrays are tracers (see the module docstring).

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      kmax: largest clique size (>= 3).
      bucket_sizes: bitmap-space sizes D (positive); a task of out-degree d
        runs in the smallest D >= d. Out-degrees above the largest get
        further buckets, doubling it, eagerly from the data and under jit
        from ``max_out_degree``.
      max_batch_words: bound on ``T * D * ceil(D / 32)``, the uint32 words of
        one batch's spaces (T tasks; a batch holds at least one task).
      max_out_degree: static bound on the out-degrees, used only when ``dag``
        is traced. ``None``: ``min(n - 1, isqrt(2 m))``, which bounds every
        DAG from :func:`kcjax.orient` (degree order: the d out-neighbours of
        a vertex have degree >= d, so 2m >= d^2; degeneracy order: d <= the
        degeneracy, and a k-core has >= k(k+1)/2 edges).

    Returns:
      uint32[kmax + 1, 4]: row s is the number of s-cliques as a 128-bit
      little-endian count (rows 0..2 are zero). Under jit, a DAG with an
      out-degree above the largest bucket used (the first >= ``max_out_degree``)
      gives all-ones rows 3..kmax (2^128 - 1) rather than a wrong count.

    Raises:
      ValueError: for kmax < 3, bucket sizes that are not positive, or
        ``max_batch_words < 1``.
    """
    kmax = as_int(kmax, "kmax", minimum=3)
    buckets = sorted({int(b) for b in bucket_sizes})
    if not buckets or buckets[0] < 1:
        raise ValueError(f"bucket sizes must be positive, got {bucket_sizes!r}")
    max_batch_words = as_int(max_batch_words, "max_batch_words", minimum=1)
    if dag.num_edges == 0:
        return jnp.zeros((kmax + 1, 4), jnp.uint32)
    if isinstance(dag.indptr, jax.core.Tracer) or isinstance(dag.indices, jax.core.Tracer):
        if max_out_degree is None:
            max_out_degree = min(dag.num_nodes - 1, math.isqrt(2 * dag.num_edges))
        bound = max(int(max_out_degree), 2)
        used = tuple(_buckets_for(buckets, bound))
        return _count_traced(dag.indptr, dag.indices, kmax, used, max_batch_words, bound)
    return _count_eager(dag, kmax, buckets, max_batch_words)


def _buckets_for(buckets: list[int], dmax: int) -> list[int]:
    """The buckets up to the first one holding out-degree dmax (doubling the largest)."""
    used = [b for b in buckets if b < dmax]
    used.append(next((b for b in buckets if b >= dmax), buckets[-1]))
    while used[-1] < dmax:
        used.append(2 * used[-1])
    return used


def _count_eager(dag: DAG, kmax: int, buckets: list[int], max_batch_words: int) -> jax.Array:
    """Host bucketing and batching; jitted kernels per batch, limbs summed on the device."""
    indptr = np.asarray(dag.indptr)
    deg = np.diff(indptr)
    tasks = np.flatnonzero(deg >= 2).astype(np.int32)
    total = jnp.zeros((kmax + 1, 4), jnp.uint32)
    if tasks.size == 0:
        return total
    tdeg = deg[tasks]
    dmax = int(tdeg.max())
    csr = _pad_csr(indptr, np.asarray(dag.indices))
    steps, kmax_arg = jnp.int32(dmax.bit_length()), jnp.int32(kmax)
    used = _buckets_for(buckets, dmax)
    for size, members in zip(used, size_classes(tdeg, used), strict=True):
        mine = tasks[members]
        if mine.size == 0:
            continue
        # Power-of-two batch sizes keep the compiled kernels few.
        wanted = max(_pow2(mine.size), _MIN_BATCH_TESTS // (size * size))
        batch = min(_batch_tasks(size, max_batch_words), wanted)
        for start in range(0, mine.size, batch):
            chunk = np.full(batch, -1, np.int32)
            part = mine[start : start + batch]
            chunk[: part.size] = part
            space, d = _build(*csr, jnp.asarray(chunk), steps, size=size)
            limbs = _search(space, d, kmax_arg, depth=_depth(kmax, size))
            total = _wide.add(total, limbs)
    return total


def _batch_tasks(size: int, max_batch_words: int) -> int:
    """Tasks per batch of bucket D: T * D * W <= max_batch_words, T >= 1."""
    return max(1, max_batch_words // (size * _words(size)))


def _depth(kmax: int, size: int) -> int:
    """Static stack depth for kmax and bucket D: cliques of a task have <= D + 1 vertices."""
    return max(_MIN_DEPTH, _pow2(min(kmax, size + 1)))


def _pow2(x: int) -> int:
    """The smallest power of two >= max(x, 1)."""
    return 1 << (max(int(x), 1) - 1).bit_length()


def _words(size: int) -> int:
    """Words W of a bitmap row of D = size bits."""
    return -(-size // 32)


def _pad_csr(indptr: np.ndarray, indices: np.ndarray) -> tuple[jax.Array, jax.Array]:
    """Pads the CSR with empty rows and unused entries to power-of-two lengths."""
    n1, m = indptr.shape[0], indices.shape[0]
    n1p, mp = max(_pow2(n1), _MIN_CSR), max(_pow2(m), _MIN_CSR)
    indptr = np.pad(indptr, (0, n1p - n1), mode="edge")
    indices = np.pad(indices, (0, mp - m), constant_values=_INT32_MAX)
    return jnp.asarray(indptr), jnp.asarray(indices)


@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5))
def _count_traced(
    indptr: jax.Array,
    indices: jax.Array,
    kmax: int,
    used: tuple[int, ...],
    max_batch_words: int,
    bound: int,
) -> jax.Array:
    """The whole count as one program: degree-sorted tasks, lax.switch over buckets."""
    n = indptr.shape[0] - 1
    deg = jnp.diff(indptr)
    _, order = jax.lax.sort((deg, jnp.arange(n, dtype=jnp.int32)), num_keys=1)
    # Slots past a bucket's tasks still cost their tests: keep batches moderate.
    batches = [min(_batch_tasks(s, max_batch_words), n, _pow2(_TRACED_TESTS // s**2)) for s in used]
    padded = jnp.concatenate([order, jnp.full(max(batches), -1, jnp.int32)])
    steps, kmax_arg = jnp.int32(bound.bit_length()), jnp.int32(kmax)

    def branch(size: int, batch: int):
        def run(pos, total):
            chunk = jax.lax.dynamic_slice(padded, (pos,), (batch,))
            ok = (chunk >= 0) & (deg[jnp.maximum(chunk, 0)] <= size)
            space, d = _build(indptr, indices, jnp.where(ok, chunk, -1), steps, size=size)
            limbs = _search(space, d, kmax_arg, depth=_depth(kmax, size))
            # Sorted by degree, the tasks that fit are a prefix of the chunk.
            return pos + jnp.sum(ok, dtype=jnp.int32), _wide.add(total, limbs)

        return run

    def overflow(pos, total):
        return jnp.int32(n), total.at[3:].set(jnp.uint32(0xFFFFFFFF))

    branches = [branch(s, b) for s, b in zip(used, batches, strict=True)] + [overflow]
    sizes = jnp.asarray(used, jnp.int32)

    def body(state):
        pos, total = state
        return jax.lax.switch(jnp.searchsorted(sizes, deg[order[pos]]), branches, pos, total)

    start = jnp.sum(deg < 2, dtype=jnp.int32)
    total = jnp.zeros((kmax + 1, 4), jnp.uint32)
    return jax.lax.while_loop(lambda s: s[0] < n, body, (start, total))[1]


@functools.partial(jax.jit, static_argnames="size")
def _build(
    indptr: jax.Array, indices: jax.Array, tasks: jax.Array, steps: jax.Array, *, size: int
) -> tuple[jax.Array, jax.Array]:
    """Bitmap spaces of a batch of tasks by D (D - 1) / 2 membership tests.

    Bit b > a of row a of task t is found by a binary search for ``C[b]`` in the
    sorted DAG row of ``C[a]`` (``C = N+(tasks[t])``), in chunks of tasks of
    at most ``_BUILD_TESTS`` tests.

    Args:
      indptr: int32[n + 1] DAG row pointers (may be padded with empty rows).
      indices: int32[m] DAG column indices (may be padded at the end).
      tasks: int32[T] task vertices, -1 for empty slots; out-degrees <= size.
      steps: int32 scalar, binary-search steps (>= bit length of every out-degree).
      size: bucket size D.

    Returns:
      (uint32[T, D, W] spaces, bit b of row a set iff ``C[a] -> C[b]``;
      int32[T] out-degrees d, 0 for empty slots).
    """
    ok = tasks >= 0
    u = jnp.where(ok, tasks, 0)
    start = indptr[u]
    d = jnp.where(ok, indptr[u + 1] - start, 0)
    lane = jnp.arange(size, dtype=jnp.int32)
    last = indices.shape[0] - 1
    cand = indices[jnp.minimum(start[:, None] + lane, last)]
    cand = jnp.where(lane < d[:, None], cand, -1)

    # Only the pairs a < b can be edges (DAG rows hold larger ranks, C is sorted).
    row_of, col_of = np.triu_indices(size, 1)
    spot = np.full(size * size, row_of.size, np.int32)
    spot[row_of * size + col_of] = np.arange(row_of.size)

    def one(c: jax.Array) -> jax.Array:
        safe = jnp.maximum(c, 0)
        lo0 = indptr[safe[row_of]]
        hi0 = jnp.where(c[row_of] >= 0, indptr[safe[row_of] + 1], lo0)
        target = c[col_of]

        def search(_, bounds):
            lo, hi = bounds
            mid = (lo + hi) // 2
            go = (indices[jnp.minimum(mid, last)] < target) & (lo < hi)
            return jnp.where(go, mid + 1, lo), jnp.where(go | (lo >= hi), hi, mid)

        lo, _ = jax.lax.fori_loop(0, steps, search, (lo0, hi0))
        hit = (lo < hi0) & (indices[jnp.minimum(lo, last)] == target) & (target >= 0)
        hit = jnp.concatenate([hit, jnp.zeros(1, bool)])[spot]
        return _pack(hit.reshape(size, size))

    chunk = min(max(1, _BUILD_TESTS // max(row_of.size, 1)), tasks.shape[0])
    return jax.lax.map(one, cand, batch_size=chunk), d


@functools.partial(jax.jit, static_argnames="depth")
def _search(space: jax.Array, d: jax.Array, kmax: jax.Array, *, depth: int) -> jax.Array:
    """Counts the cliques of one batch of tasks from their bitmap spaces.

    Args:
      space: uint32[T, D, W] bitmap spaces from :func:`_build`.
      d: int32[T] candidate counts, 0 for empty slots.
      kmax: int32 scalar, largest clique size (>= 3).
      depth: static, at least ``min(kmax, D + 1)`` (sets the stack capacity).

    Returns:
      uint32[depth + 1, 4]: 128-bit counts of the s-cliques rooted at the
      tasks for s = 3..min(kmax, depth) (other rows zero).
    """
    num_tasks, size, words = space.shape
    pop = max(1, _STEP_BITS // size)
    dense_last = size <= _DENSE_LAST
    cap = num_tasks + max(depth - (4 if dense_last else 3), 0) * pop

    # Root rows: Q = {u}, cur = its d candidates.
    live = jnp.arange(size, dtype=jnp.int32)[None, :] < d[:, None]
    rows_bits = jnp.zeros((cap, words), jnp.uint32).at[:num_tasks].set(_pack(live))
    rows_task = jnp.zeros(cap, jnp.int32).at[:num_tasks].set(jnp.arange(num_tasks))
    rows_q = jnp.zeros(cap, jnp.int32).at[:num_tasks].set(1)
    top = jnp.max(jnp.where(d > 0, jnp.arange(1, num_tasks + 1, dtype=jnp.int32), 0))
    total = jnp.zeros((depth + 1, 4), jnp.uint32)
    idx = jnp.arange(pop, dtype=jnp.int32)
    shift = jnp.arange(32, dtype=jnp.uint32)

    def body(state):
        rows_bits, rows_task, rows_q, top, total = state
        # The window: the top P rows, top down, each giving its lowest bits.
        window = top - 1 - idx
        inside = window >= 0
        wbits = jnp.where(inside[:, None], rows_bits[jnp.maximum(window, 0)], jnp.uint32(0))
        wcnt = jnp.sum(jax.lax.population_count(wbits).astype(jnp.int32), axis=1)
        before = jnp.cumsum(wcnt) - wcnt
        take = jnp.clip(pop - before, 0, wcnt)
        partial = inside & (take < wcnt)
        n_full = jnp.min(jnp.where(partial, idx, jnp.minimum(top, pop)))
        # Pair p: its window row, and the rank of its bit within that row.
        owner = jnp.repeat(idx, take, total_repeat_length=pop)
        cur = wbits[owner]
        bit = _select(cur, idx - before[owner])
        r = jnp.maximum(window[owner], 0)
        task, q = rows_task[r], rows_q[r]
        valid = idx < jnp.sum(take)
        child = jnp.where(valid[:, None], cur & space[task, bit], jnp.uint32(0))
        cnt = jnp.sum(jax.lax.population_count(child).astype(jnp.int32), axis=1)
        level = jnp.zeros(depth + 1, jnp.int32).at[q + 2].add(cnt, mode="drop")
        if dense_last:
            grand = jax.lax.population_count(child[:, None, :] & space[task])
            grand = jnp.sum(grand.astype(jnp.int32), axis=2)
            bitset = ((child[..., None] >> shift) & jnp.uint32(1)).reshape(pop, -1)[:, :size]
            fin = jnp.sum(jnp.where(bitset > 0, grand, 0), axis=1)
            level = level.at[q + 3].add(jnp.where(q + 3 == kmax, fin, 0), mode="drop")
            push = valid & (q + 4 <= kmax) & (cnt > 0)
        else:
            push = valid & (q + 3 <= kmax) & (cnt > 0)
        total = _wide.add_small(total, level.astype(jnp.uint32))
        # The partly taken row keeps its bits from its first untaken one.
        new_top = top - n_full
        edge = jnp.minimum(n_full, pop - 1)
        rest = _clear_below(wbits[edge], _select(wbits[edge][None], take[edge][None])[0])
        keep = jnp.where((n_full < pop) & (new_top > 0), new_top - 1, cap)
        rows_bits = rows_bits.at[keep].set(rest, mode="drop")
        # Children above it, the deepest parents' last: the stack stays sorted by level.
        later = jnp.cumsum(push[::-1].astype(jnp.int32))[::-1] - push
        dest = jnp.where(push, new_top + later, cap)
        rows_bits = rows_bits.at[dest].set(child, mode="drop")
        rows_task = rows_task.at[dest].set(task, mode="drop")
        rows_q = rows_q.at[dest].set(q + 1, mode="drop")
        return rows_bits, rows_task, rows_q, new_top + jnp.sum(push, dtype=jnp.int32), total

    state = (rows_bits, rows_task, rows_q, top, total)
    return jax.lax.while_loop(lambda s: s[3] > 0, body, state)[-1]


def _select(bits: jax.Array, rank: jax.Array) -> jax.Array:
    """int32[P]: position of the rank-th (0-based) set bit of each uint32[P, W] row."""
    counts = jax.lax.population_count(bits).astype(jnp.int32)
    ends = jnp.cumsum(counts, axis=1)
    word = jnp.minimum(jnp.sum(ends <= rank[:, None], axis=1, dtype=jnp.int32), bits.shape[1] - 1)
    x = jnp.take_along_axis(bits, word[:, None], axis=1)[:, 0]
    k = rank - jnp.take_along_axis(ends - counts, word[:, None], axis=1)[:, 0]
    pos = jnp.zeros_like(rank)
    for h in (16, 8, 4, 2, 1):
        low = x & ((jnp.uint32(1) << (pos + h).astype(jnp.uint32)) - jnp.uint32(1))
        pos = jnp.where(jax.lax.population_count(low).astype(jnp.int32) <= k, pos + h, pos)
    return 32 * word + pos


def _clear_below(bits: jax.Array, pos: jax.Array) -> jax.Array:
    """uint32[W] row with every bit below position ``pos`` cleared."""
    shift = jnp.clip(pos - 32 * jnp.arange(bits.shape[0], dtype=jnp.int32), 0, 32)
    low = (jnp.uint32(1) << (shift & 31).astype(jnp.uint32)) - jnp.uint32(1)
    return bits & ~jnp.where(shift >= 32, jnp.uint32(0xFFFFFFFF), low)


def _pack(bits: jax.Array) -> jax.Array:
    """bool[..., D] -> uint32[..., W]: bit j of word w is element 32 w + j."""
    words = _words(bits.shape[-1])
    bits = jnp.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, 32 * words - bits.shape[-1])])
    shifted = bits.reshape(bits.shape[:-1] + (words, 32)).astype(jnp.uint32)
    shifted = shifted << jnp.arange(32, dtype=jnp.uint32)
    return jnp.sum(shifted, axis=-1, dtype=jnp.uint32)  # disjoint bits: the sum is the OR
