// RUN: crest-opt %s --split-input-file --crest-lower-to-gpu -verify-diagnostics

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @no_config(%a: tensor<16x16xf16>) -> tensor<16x16xf32> {
    // expected-error @+1 {{'crest.matmul' op has no #crest.config; run crest-select-config first}}
    %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}

// -----

// expected-error @+1 {{crest-lower-to-gpu needs a #crest.target on the module (run crest-attach-target first)}}
module {
  func.func @no_target(%a: tensor<16x16xf16>) {
    return
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @multi_block(%a: tensor<16x16xf16>) -> tensor<16x16xf32> {
    // expected-error @+1 {{'crest.matmul' op codegen supports single-block MFMA instructions in wave64; v_mfma_f32_16x16x4_4b_f16 is not one}}
    %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x4_4b_f16", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}

// -----

// Split-K divides K among the waves of one workgroup, which read their
// own fragments: it is not combined with LDS-shared tiles.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @split_k_workgroup(%a: tensor<16x4096xf16>, %b: tensor<4096x16xf16>) -> tensor<16x16xf32> {
    // expected-error @+1 {{'crest.matmul' op split_k = 4 splits K across the waves of a workgroup and is generated for scope = wavefront only}}
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 64], wave_tile = [16, 16], scope = workgroup, split_k = 4>
           : tensor<16x4096xf16>, tensor<4096x16xf16> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @conv(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<1x16x6x6xf32> {
    // expected-error @+1 {{'crest.conv2d' op has groups = 4 and a #crest.config; only convolutions with groups = 1 run as implicit GEMMs}}
    %0 = crest.conv2d %x, %w groups 4 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x4_f32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32> -> tensor<1x16x6x6xf32>
    return %0 : tensor<1x16x6x6xf32>
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @bad_epilogue(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>) -> tensor<16x16xf32> {
    %0 = crest.kernel ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>)
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           -> tensor<16x16xf32> {
    ^bb0(%x: tensor<16x16xf16>, %y: tensor<16x16xf16>):
      %1 = crest.matmul %x, %y precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      // expected-error @+1 {{operand of a fused op is neither a kernel input, a splat constant nor computed in the kernel}}
      %c = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]]> : tensor<1x16xf32>
      %2 = crest.add %1, %c : tensor<16x16xf32>, tensor<1x16xf32> -> tensor<16x16xf32>
      crest.yield %2 : tensor<16x16xf32>
    }
    return %0 : tensor<16x16xf32>
  }
}

// -----

// The skinny path (rhs_vector) needs a row-major K x N rhs.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @rhs_vector_transposed(%a: tensor<1x256xf16>, %b: tensor<256x256xf16>) -> tensor<1x256xf32> {
    // expected-error @+1 {{'crest.matmul' op rhs_vector = 8: the wide rhs loads need a row-major K x N rhs and a row-major M x K lhs (no transpose, no convolution)}}
    %0 = crest.matmul %a, %b transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32], wave_tile = [16, 128], scope = wavefront, rhs_vector = 8>
           : tensor<1x256xf16>, tensor<256x256xf16> -> tensor<1x256xf32>
    return %0 : tensor<1x256xf32>
  }
}

// -----

// The wave tile's N must be the instruction's lane columns times rhs_vector.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @rhs_vector_wave_tile(%a: tensor<1x256xf16>, %b: tensor<256x256xf16>) -> tensor<1x256xf32> {
    // expected-error @+1 {{'crest.matmul' op rhs_vector = 8: needs wave_tile = workgroup_tile[0:2] with N = 16 x 8 (the instruction's 16 lane columns times 8 columns per lane), got wave_tile [16, 64] in workgroup_tile [16, 64, 32]}}
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 64, 32], wave_tile = [16, 64], scope = wavefront, rhs_vector = 8>
           : tensor<1x256xf16>, tensor<256x256xf16> -> tensor<1x256xf32>
    return %0 : tensor<1x256xf32>
  }
}

// -----

// Every lane's 16-byte load must be inside N.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @rhs_vector_n(%a: tensor<1x256xf16>, %b: tensor<256x250xf16>) -> tensor<1x250xf32> {
    // expected-error @+1 {{'crest.matmul' op rhs_vector = 8: N = 250 is not a multiple of 8 (every lane's load must be inside N and aligned)}}
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32], wave_tile = [16, 128], scope = wavefront, rhs_vector = 8>
           : tensor<1x256xf16>, tensor<256x250xf16> -> tensor<1x250xf32>
    return %0 : tensor<1x250xf32>
  }
}

// -----

// More than one 16-byte load per lane.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @rhs_vector_wide(%a: tensor<1x256xf16>, %b: tensor<256x256xf16>) -> tensor<1x256xf32> {
    // expected-error @+1 {{'crest.matmul' op rhs_vector = 16: 16 elements of 'f16' exceed one 16-byte load}}
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 256, 32], wave_tile = [16, 256], scope = wavefront, rhs_vector = 16>
           : tensor<1x256xf16>, tensor<256x256xf16> -> tensor<1x256xf32>
    return %0 : tensor<1x256xf32>
  }
}

// -----

// RDNA's WMMA instructions are in the chip table (a config may name them),
// but codegen has an emitter for the MFMA family only.
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @wmma(%a: tensor<32x32xf16>) -> tensor<32x32xf32> {
    // expected-error @+1 {{'crest.matmul' op codegen has no emitter for v_wmma_f32_16x16x16_f16 (the chip table describes it, but Crest generates MFMA kernels only)}}
    %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    return %0 : tensor<32x32xf32>
  }
}

// -----

// A prologue on a grouped convolution (the direct kernel reads its input
// without one); crest-fuse-epilogues never forms this kernel.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @grouped_prologue(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf16>) -> tensor<1x8x4x4xf32> {
    %y = crest.kernel ins(%x, %w : tensor<1x8x6x6xf32>, tensor<8x1x3x3xf16>) -> tensor<1x8x4x4xf32> {
    ^bb0(%a: tensor<1x8x6x6xf32>, %b: tensor<8x1x3x3xf16>):
      // expected-error @+1 {{'crest.cast' op is fused into the operand loads of a grouped convolution, whose direct kernel has no operand prologue; keep it outside the crest.kernel}}
      %0 = crest.cast %a : tensor<1x8x6x6xf32> to tensor<1x8x6x6xf16>
      %1 = crest.conv2d %0, %b groups 8 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x8x6x6xf16>, tensor<8x1x3x3xf16> -> tensor<1x8x4x4xf32>
      crest.yield %1 : tensor<1x8x4x4xf32>
    }
    return %y : tensor<1x8x4x4xf32>
  }
}

// -----

// A prologue whose only source is a bool tensor: the operand's vector
// loads cannot read i1.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @bool_prologue(%x: tensor<32x64xf16>, %m: tensor<64x32xi1>) -> tensor<32x32xf32> {
    %y = crest.kernel ins(%x, %m : tensor<32x64xf16>, tensor<64x32xi1>) -> tensor<32x32xf32> {
    ^bb0(%a: tensor<32x64xf16>, %b: tensor<64x32xi1>):
      // expected-error @+1 {{'crest.cast' op reads the contraction's rhs from a bool tensor, which the operand's vector loads cannot read (i1 is not byte-addressed); cast it outside the crest.kernel}}
      %0 = crest.cast %b : tensor<64x32xi1> to tensor<64x32xf16>
      %1 = crest.matmul %a, %0 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [32, 32, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>
             : tensor<32x64xf16>, tensor<64x32xf16> -> tensor<32x32xf32>
      crest.yield %1 : tensor<32x32xf32>
    }
    return %y : tensor<32x32xf32>
  }
}

// -----

// A non-splat constant in a prologue (crest-fuse-epilogues makes such
// constants kernel inputs): one error, not one per loaded element.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @dense_constant_prologue(%x: tensor<32x4xf32>, %w: tensor<4x32xf16>) -> tensor<32x32xf32> {
    %y = crest.kernel ins(%x, %w : tensor<32x4xf32>, tensor<4x32xf16>) -> tensor<32x32xf32> {
    ^bb0(%a: tensor<32x4xf32>, %b: tensor<4x32xf16>):
      // expected-error @+1 {{operand of a fused op is neither a kernel input, a splat constant nor computed in the kernel}}
      %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %0 = crest.mul %a, %c : tensor<32x4xf32>, tensor<4xf32> -> tensor<32x4xf32>
      %1 = crest.cast %0 : tensor<32x4xf32> to tensor<32x4xf16>
      %2 = crest.matmul %1, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [32, 32, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>
             : tensor<32x4xf16>, tensor<4x32xf16> -> tensor<32x32xf32>
      crest.yield %2 : tensor<32x32xf32>
    }
    return %y : tensor<32x32xf32>
  }
}
