// Each wave runs 64 iterations of 8 independent 32x32x8 f16 MFMAs and then
// one LDS round trip and one global store per lane; the argument is the
// output buffer (64 dwords per wave).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 5
.text
.globl mfma_loop
.p2align 8
.type mfma_loop,@function
mfma_loop:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32_e32 v4, 0x3ff, v0
  v_lshlrev_b32_e32 v5, 2, v4
  v_mov_b32_e32 v0, 1.0
  v_mov_b32_e32 v1, 1.0
  v_mov_b32_e32 v2, 1.0
  v_mov_b32_e32 v3, 1.0
  s_mov_b32 s4, 64
.Lloop:
  v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]
  v_mfma_f32_32x32x8_f16 a[16:31], v[0:1], v[2:3], a[16:31]
  v_mfma_f32_32x32x8_f16 a[32:47], v[0:1], v[2:3], a[32:47]
  v_mfma_f32_32x32x8_f16 a[48:63], v[0:1], v[2:3], a[48:63]
  v_mfma_f32_32x32x8_f16 a[64:79], v[0:1], v[2:3], a[64:79]
  v_mfma_f32_32x32x8_f16 a[80:95], v[0:1], v[2:3], a[80:95]
  v_mfma_f32_32x32x8_f16 a[96:111], v[0:1], v[2:3], a[96:111]
  v_mfma_f32_32x32x8_f16 a[112:127], v[0:1], v[2:3], a[112:127]
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 .Lloop
  s_nop 7
  s_nop 7
  v_accvgpr_read_b32 v6, a0
  ds_write_b32 v5, v6
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v7, v5
  s_waitcnt lgkmcnt(0)
  s_waitcnt lgkmcnt(0)
  global_store_dword v5, v7, s[0:1]
  s_endpgm
.size mfma_loop, .-mfma_loop
.rodata
.p2align 6
.amdhsa_kernel mfma_loop
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 256
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 128
  .amdhsa_group_segment_fixed_size 1024
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: mfma_loop
    .symbol: mfma_loop.kd
    .kernarg_segment_size: 8
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 256
    .agpr_count: 128
    .max_flat_workgroup_size: 256
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
