// The BFS op family: the FFI contract and handler symbols (policy in policy.h).
//
// FFI contract of target "kcjax_bfs" (identical on CPU and CUDA):
//   args  indptr  int32[..., n + 1]  symmetric CSR row pointers (leading dims all 1:
//                                    vmap's expand_dims of an unbatched graph)
//         indices int32[..., m]      CSR columns (any order within a row)
//         sources int32[..., s]      BFS roots; all leading dims and s are flattened
//                                    into one list of S sources
//   attrs method    int32  kcjax::bfs::BfsMethod (the ablation ladder)
//         direction int32  kcjax::bfs::BfsDirection
//         batch     int32  kcjax::bfs::BfsBatch: how several sources are served
//         hub_tau   int32  hub degree threshold τ; < 0: BfsPolicy's rule
//         cluster int32 kBfsCluster's blocks per cluster (1 to 16); < 0: the
//                          policy's size for the graph (a launch choice: results
//                          do not depend on it; the CPU ignores it)
//   ret   dist    int32[..., s, n]   hop distance from each source, -1 unreachable
//         parent  int32[..., s, n] or int32[..., s, 0] (no parents asked):
//                 a BFS parent of every reached vertex, the source its own
//                 parent, -1 unreachable
//   A source outside [0, n) gives a row of -1 (the Python API rejects concrete
//   out-of-range sources before the call).
//
// Distances are unique; parents are any valid BFS parent (the CUDA kernels
// race benignly on which frontier vertex claims a child, and kBfsCluster may
// switch direction at other levels than the CPU), so CPU and CUDA agree
// exactly on distances and both pass Graph500 validation on parents.
#pragma once

#include "kcjax/bfs/policy.h"
#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_bfs_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_bfs_cuda);
#endif
