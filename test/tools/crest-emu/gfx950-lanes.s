// gfx950's lane swaps and NaN-propagating min/max. out[0:64] and
// out[64:128] are v0 and v1 after v_permlane32_swap_b32 v0, v1 (v0 = lane,
// v1 = lane + 100 before); out[128:256] the same after
// v_permlane16_swap_b32; out[256:448] lane 0..63 of v_maximum3_f32(1, NaN,
// 2), v_maximum3_f32(-0, +0, -1) and v_minimum3_f32(+0, -0, 1); out[448:512]
// v_max3_f32(1, NaN, 2) for contrast.
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.amdhsa_code_object_version 5
.text
.globl lane
.p2align 8
.type lane,@function
lane:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32_e32 v0, 0x3ff, v0
  v_lshlrev_b32_e32 v10, 2, v0
  v_mov_b32_e32 v2, v0
  v_add_u32_e32 v1, 100, v0
  v_add_u32_e32 v3, 100, v0
  v_permlane32_swap_b32 v0, v1
  v_permlane16_swap_b32 v2, v3
  v_mov_b32_e32 v4, 1.0
  v_mov_b32_e32 v5, 0x7fc00000
  v_mov_b32_e32 v6, 2.0
  v_maximum3_f32 v7, v4, v5, v6
  v_max3_f32 v11, v4, v5, v6
  v_mov_b32_e32 v4, 0x80000000
  v_mov_b32_e32 v5, 0
  v_mov_b32_e32 v6, -1.0
  v_maximum3_f32 v8, v4, v5, v6
  v_mov_b32_e32 v6, 1.0
  v_minimum3_f32 v9, v5, v4, v6
  s_waitcnt lgkmcnt(0)
  global_store_dword v10, v0, s[0:1]
  global_store_dword v10, v1, s[0:1] offset:256
  global_store_dword v10, v2, s[0:1] offset:512
  global_store_dword v10, v3, s[0:1] offset:768
  global_store_dword v10, v7, s[0:1] offset:1024
  global_store_dword v10, v8, s[0:1] offset:1280
  global_store_dword v10, v9, s[0:1] offset:1536
  global_store_dword v10, v11, s[0:1] offset:1792
  s_endpgm
.size lane, .-lane
.rodata
.p2align 6
.amdhsa_kernel lane
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 12
  .amdhsa_next_free_sgpr 2
  .amdhsa_accum_offset 12
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: lane
    .symbol: lane.kd
    .kernarg_segment_size: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 12
    .max_flat_workgroup_size: 64
    .reqd_workgroup_size: [ 64, 1, 1 ]
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
