// A kernel that copies the hidden arguments of its kernarg segment (the
// 256 bytes at the implicit argument pointer, code object v5) to `out`, so
// a test can see what the runtime wrote there, and echoes its two value
// arguments.
// Compiled by clang for code object v5 without HIP's headers or device
// libraries (as test/Emulator/e2e does).
#define __global__ __attribute__((global))

extern "C" __global__ void dump_kernargs(unsigned *out, int value,
                                         short small) {
  const unsigned *hidden =
      (const unsigned *)__builtin_amdgcn_implicitarg_ptr();
  unsigned lane = __builtin_amdgcn_workitem_id_x();
  unsigned id = lane + 64 * (__builtin_amdgcn_workitem_id_y() +
                             2 * (__builtin_amdgcn_workgroup_id_x() +
                                  3 * __builtin_amdgcn_workgroup_id_y()));
  // Work-item 0 copies the segment; every work-item counts itself in.
  if (id == 0) {
    for (unsigned i = 0; i < 64; ++i)
      out[i] = hidden[i];
    out[64] = (unsigned)value;
    out[65] = (unsigned)(unsigned short)small;
  }
  __atomic_fetch_add(&out[66], 1u, __ATOMIC_RELAXED);
}
