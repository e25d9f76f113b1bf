// Compiler glue shared by host and device code.
#pragma once

#if defined(__CUDACC__)
#define KCJAX_HD __host__ __device__
// Small accessors used inside hot device loops: always inlined on the device.
#define KCJAX_HD_INLINE __host__ __device__ __forceinline__
#else
#define KCJAX_HD
#define KCJAX_HD_INLINE inline
#endif
