// The k-clique op family's FFI contracts and handler symbols (the policy in
// policy.h, the handlers' checks and bindings in args.h).
//
// FFI contract of target "kcjax_clique_count" (identical on CPU and CUDA):
//   args  indptr  int32[n + 1]  DAG CSR row pointers
//         indices int32[m]      DAG CSR columns; row u sorted, every entry > u
//         src     int32[m]      row of every DAG edge (src[e] = u for e in row u)
//         tasks   int32[t]      edge ids to process; -1 entries are padding
//   attrs kmax        int32     largest clique size counted (>= 3)
//         method      int32     kcjax::cliques::CountMethod
//         lam         float32   λ override for every (k, level); < 0: policy
//         num_threads int32     CPU worker threads; 0: all cores (CUDA ignores)
//         all_edges   bool      every edge is a task (task i is edge i); tasks
//                               must then be int32[0] (no task-id array is
//                               materialized for a whole-graph count)
//         max_degree  int32     the DAG's largest out-degree when the caller
//                               knows it, else -1. A hint, never trusted for
//                               memory sizing: the CUDA handler runs KCMiner at
//                               kmax = 4 as one list-based kernel up to
//                               CliquePolicy::kShallowMaxDegree (UseShallowPath)
//                               and from kmax = 5 as one kernel when every
//                               candidate set is below kSmallTaskMax
//                               (UseSmallRoute); the CPU handler ignores it. A
//                               wrong hint costs speed, never exactness.
//   ret   counts uint32[kmax + 1, 4]
//         counts[s] = number of s-cliques containing a task edge as their two
//         lowest-ranked vertices, as a 128-bit little-endian integer; rows
//         0..2 are zero (sizes 1 and 2 are known on the host).
//
// Vertices are ranked by the orientation so that u -> v iff u < v: every
// bitmap space over a sorted candidate set is strictly upper triangular.
#pragma once

#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_count_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_list_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_per_vertex_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_pivot_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_pivot_local_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_maximal_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_count_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_list_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_per_vertex_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_pivot_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_pivot_local_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_clique_maximal_cuda);
#endif

// Targets "kcjax_clique_list" and "kcjax_clique_per_vertex" take the same
// args and attrs except all_edges and max_degree (kmax is then the one
// clique size k listed or counted):
//   kcjax_clique_list       attr stop_when_full bool: stop the search once
//                           capacity cliques are written
//                           ret cliques int32[capacity, k] rank ids, each row
//                               ascending; rows past the count are -1
//                               count uint32[4] k-cliques found (128-bit);
//                               count > capacity means the listing overflowed
//   kcjax_clique_per_vertex ret counts uint32[n, 4]: k-cliques containing each
//                               vertex (128-bit)

// FFI contract of target "kcjax_clique_pivot" (identical on CPU and CUDA):
//   args  indptr  int32[n + 1]  DAG CSR as above (u -> v iff u < v)
//         indices int32[m]
//         tasks   int32[t]      root vertex ids; -1 entries are padding
//   attrs hmax        int32     branches holding more than hmax vertices are
//                               pruned (they only feed clique sizes > hmax)
//         kmin        int32     branches that cannot reach kmin vertices are
//                               pruned (1: keep everything)
//         num_threads int32     CPU worker threads; 0: all cores (CUDA ignores)
//   ret   hist uint32[hmax + 1, pmax + 1, 4], 128-bit little-endian cells
//         such that count_k = sum_{h,p} hist[h, p] * C(p, k - h) for every
//         kmin <= k <= hmax, summed over the root tasks. Cells count the
//         leaves of the succinct clique tree (Pivoter) with h held and p pivot
//         vertices, except that a node within CliquePolicy::kPivotResolveDepth
//         held vertices of hmax is resolved in closed form: cell (h + j, p)
//         gets its number of j-cliques among the candidates. pmax + 1 is the
//         output's second dimension and must exceed every candidate-set size
//         (else an error is returned). The host finishes the sum exactly.
// A root task v starts with held = {v} (h = 1), candidates P = N+(v), p = 0.

// FFI contract of target "kcjax_clique_pivot_local" (identical on CPU and
// CUDA): per-vertex k-clique counts by the same succinct clique tree.
//   args  indptr, indices, tasks  as for "kcjax_clique_pivot"
//   attrs k           int32     clique size (>= 1)
//         num_threads int32     CPU worker threads; 0: all cores (CUDA ignores)
//   ret   counts uint32[n, 4]   counts[v] = number of k-cliques containing v
//         among those whose lowest-ranked vertex is a root task, as a 128-bit
//         little-endian integer. Each terminal node of the tree adds to every
//         vertex its number of k-cliques there (rules in ffi/cpu/cliques/pivot.cc).
//         The caller guarantees k * count_k < 2^128 (no vertex total wraps);
//         kcjax.clique_counts_per_vertex checks it from the histogram.

// FFI contract of target "kcjax_clique_maximal" (identical on CPU and CUDA):
// the maximal cliques of an undirected graph.
//   args  indptr  int32[n + 1]  undirected CSR (symmetric, each row strictly
//         indices int32[e]      ascending; self loops are ignored)
//         rank    int32[n]      a permutation of 0..n-1 (a degeneracy order
//                               keeps the searches small)
//         tasks   int32[t]      root vertex ids; -1 entries are padding
//   attrs num_threads int32     CPU worker threads; 0: all cores (CUDA ignores)
//   ret   verts  int32[cv]      the cliques' vertex ids, one clique after
//         sizes  int32[cc]      another, and each clique's size: the maximal
//                               cliques whose lowest-ranked vertex is a task,
//                               in task order, each task's in its search order
//                               (Bron-Kerbosch with Tomita's pivot, rules in
//                               ffi/cpu/cliques/maximal.cc), each clique as
//                               its root then the vertices in the order added.
//                               Written only when both fit (totals[0] <= cc
//                               and totals[1] <= cv) and cc > 0: cc = 0
//                               counts without listing.
//         totals int32[2]       (cliques, entries) found, saturated at 2^31 - 1
//         best   int32[n]       best[v] = the size of the largest of those
//                               cliques containing v (0: none)
