// Each work-item i of the block stores i at out[i] (first argument); the
// second argument is a 4-byte value the kernel ignores.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 5
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32_e32 v0, 0x3ff, v0
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v0, s[0:1]
  s_endpgm
.size k, .-k
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 2
  .amdhsa_next_free_sgpr 2
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 12
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 2
    .max_flat_workgroup_size: 256
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
      - { .size: 4, .offset: 8, .value_kind: by_value }
...
.end_amdgpu_metadata
