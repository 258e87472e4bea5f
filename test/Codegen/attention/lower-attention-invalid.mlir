// RUN: crest-opt %s --split-input-file --crest-lower-attention -verify-diagnostics

// RDNA3 has WMMA, whose layouts codegen does not implement.
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @wave32(%q: tensor<1x1x16x64xf16>, %k: tensor<1x1x16x64xf16>,
                    %v: tensor<1x1x16x64xf16>) -> tensor<1x1x16x64xf16> {
    // expected-error @+1 {{'crest.attention' op has no fused kernel on gfx1100: no pair of matrix instructions for #crest.precision<lhs = f16, rhs = f16, acc = f32, out = f32> and #crest.precision<lhs = f16, rhs = f16, acc = f32, out = f16> whose score accumulator layout feeds the P V product}}
    %o = crest.attention %q, %k, %v
           qk <lhs = f16, rhs = f16, acc = f32, out = f32>
           pv <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<1x1x16x64xf16>, tensor<1x1x16x64xf16>, tensor<1x1x16x64xf16> -> tensor<1x1x16x64xf16>
    return %o : tensor<1x1x16x64xf16>
  }
}

// -----

// The module needs a target.
// expected-error @+1 {{crest-lower-attention needs a #crest.target on the module (run crest-attach-target first)}}
module {
  func.func @no_target(%q: tensor<1x1x16x64xf16>, %k: tensor<1x1x16x64xf16>,
                       %v: tensor<1x1x16x64xf16>) -> tensor<1x1x16x64xf16> {
    %o = crest.attention %q, %k, %v
           qk <lhs = f16, rhs = f16, acc = f32, out = f32>
           pv <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<1x1x16x64xf16>, tensor<1x1x16x64xf16>, tensor<1x1x16x64xf16> -> tensor<1x1x16x64xf16>
    return %o : tensor<1x1x16x64xf16>
  }
}
