"""The filter rounds' FFI target against the plan's array formulation.

``kcjax_match_filter`` (each platform present, eagerly and under jit) must
return exactly the candidates and round statistics of the reference: the
plan's synchronous ``_filter_round`` repeated by a Python loop until a round
removes nothing.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest
from reference.matching import random_labeled, walk_query

from kcjax import LabeledGraph
from kcjax import experimental as x
from kcjax.experimental import match_filter_rounds as filter_rounds
from kcjax.experimental import match_from_mask as from_mask
from kcjax.experimental import match_reference_rounds as reference_rounds
from kcjax.experimental import match_to_mask as to_mask

# (n, p, labels, parts, seed, query size): sparse and dense, few and many labels,
# disconnected, and a query of 32 vertices (every bit of the masks).
CASES = [
    (40, 0.15, 2, 1, 1, 5),
    (40, 0.3, 5, 1, 2, 8),
    (60, 0.1, 3, 3, 3, 6),
    (30, 0.5, 1, 1, 4, 12),
    (80, 0.2, 4, 1, 5, 32),
]


def _inputs(n, p, labels, parts, seed, size):
    g = random_labeled(n, p, labels, seed=seed, parts=parts)
    q = walk_query(g, size, seed=seed)
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    spec = x.match_query(qq)
    gp = x.match_graph_prep(d)
    qa = x.match_unpack(x.match_packed_query(spec, d), spec.size)
    slot, by_label = x.match_slots(gp, qa)
    return gp, qa, slot, by_label


@pytest.mark.parametrize("rounds", [0, 2, 16])
@pytest.mark.parametrize("refine", [False, True])
@pytest.mark.parametrize("case", CASES, ids=[f"n{c[0]}-q{c[5]}" for c in CASES])
def test_filter_equals_reference(platform, case, refine, rounds):
    gp, qa, slot, by_label = jax.device_put(_inputs(*case), jax.devices(platform)[0])

    @functools.partial(jax.jit, static_argnums=1)  # one program per case, not per op
    def round_fn(cand, ref):
        return x.match_filter_round(cand, gp, slot, qa, refine=ref)

    want, want_info = reference_rounds(round_fn, by_label, refine, rounds)
    args = (gp.indptr, gp.indices, slot, by_label, qa.nlc, qa.adj, refine)
    for fn in (filter_rounds, jax.jit(filter_rounds, static_argnames="rounds")):
        got, info = fn(*args, rounds=rounds)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert np.asarray(info).tolist() == want_info


def test_masks_round_trip():
    bits = np.random.default_rng(0).random((7, 32)) < 0.5
    mask = to_mask(bits)
    assert mask.dtype == np.uint32
    np.testing.assert_array_equal(np.asarray(from_mask(mask, 32)), bits)


def test_bad_operands():
    # The CPU handler checks the host data too (the CUDA handler trusts it).
    with jax.default_device(jax.devices("cpu")[0]):
        gp, qa, slot, by_label = _inputs(*CASES[0])
        args = (gp.indptr, gp.indices, slot)
        with pytest.raises(ValueError, match="rounds must be >= 0"):
            filter_rounds(*args, by_label, qa.nlc, qa.adj, True, rounds=-1)
        unlabeled = np.asarray(slot) < 0
        assert unlabeled.any()  # padding vertices at least
        wrong = np.asarray(by_label).copy()
        wrong[unlabeled] = True
        with pytest.raises(Exception, match="label slot"):
            jax.block_until_ready(filter_rounds(*args, wrong, qa.nlc, qa.adj, True, rounds=2))
