// Minimal HIP-like definitions for kernels compiled by clang without the
// HIP headers or device libraries (-nogpuinc -nogpulib).
#pragma once

#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef short short4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));

__device__ inline unsigned threadIdxX() { return __builtin_amdgcn_workitem_id_x(); }
__device__ inline unsigned blockIdxX() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ inline unsigned blockIdxY() { return __builtin_amdgcn_workgroup_id_y(); }

// __syncthreads(): release LDS writes, wait for every wave, acquire.
__device__ inline void syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
