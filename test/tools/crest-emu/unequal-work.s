// Workgroups of unequal work: an odd workgroup ID loops 64 times, an even
// one 16 times (the body is the same VALU chain either way). With the
// equal-work variant every workgroup loops 16 times.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 5
.text
.globl unequal
.p2align 8
.type unequal,@function
unequal:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  s_and_b32 s3, s2, 1          // EQUAL: s_mov_b32 s3, 0
  s_mul_i32 s3, s3, 48
  s_add_u32 s3, s3, 16
  v_mov_b32_e32 v1, 0
.Lloop:
  v_add_f32_e32 v1, 1.0, v1
  v_add_f32_e32 v1, 1.0, v1
  v_add_f32_e32 v1, 1.0, v1
  v_add_f32_e32 v1, 1.0, v1
  s_sub_u32 s3, s3, 1
  s_cmp_lg_u32 s3, 0
  s_cbranch_scc1 .Lloop
  v_and_b32_e32 v0, 0x3ff, v0
  v_lshlrev_b32_e32 v2, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[0:1]
  s_endpgm
.size unequal, .-unequal
.rodata
.p2align 6
.amdhsa_kernel unequal
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_next_free_vgpr 3
  .amdhsa_next_free_sgpr 4
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: unequal
    .symbol: unequal.kd
    .kernarg_segment_size: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 4
    .vgpr_count: 3
    .max_flat_workgroup_size: 256
    .reqd_workgroup_size: [ 256, 1, 1 ]
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
