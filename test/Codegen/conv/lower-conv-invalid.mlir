// RUN: crest-opt %s --split-input-file --crest-lower-to-gpu -verify-diagnostics

// A config on a grouped convolution: only groups = 1 runs on matrix
// instructions.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @grouped(%x: tensor<1x16x8x8xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x6x6xf32> {
    // expected-error @+1 {{has groups = 2 and a #crest.config; only convolutions with groups = 1 run as implicit GEMMs}}
    %0 = crest.conv2d %x, %w groups 2 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x4_f32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32> -> tensor<1x16x6x6xf32>
    return %0 : tensor<1x16x6x6xf32>
  }
}

// -----

// A regular convolution still needs a config.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @unconfigured(%x: tensor<1x16x8x8xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x6x6xf32> {
    // expected-error @+1 {{has no #crest.config; run crest-select-config first}}
    %0 = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32> -> tensor<1x16x6x6xf32>
    return %0 : tensor<1x16x6x6xf32>
  }
}
