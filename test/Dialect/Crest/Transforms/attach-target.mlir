// RUN: crest-opt %s --crest-attach-target=chip=gfx90a | FileCheck %s --check-prefix=GFX90A
// RUN: crest-opt %s --pass-pipeline='builtin.module(crest-attach-target{chip=gfx1100 wave-size=64})' | FileCheck %s --check-prefix=GFX1100
// Without options the pass attaches the default chip, gfx942.
// RUN: crest-opt %s --crest-attach-target | FileCheck %s --check-prefix=DEFAULT

// An existing target is replaced.
// GFX90A: module attributes {crest.target = #crest.target<chip = "gfx90a">}
// GFX1100: module attributes {crest.target = #crest.target<chip = "gfx1100", wave_size = 64>}
// DEFAULT: module attributes {crest.target = #crest.target<chip = "gfx942">}
module attributes {crest.target = #crest.target<chip = "gfx908">} {
  func.func @f(%a: tensor<16x64xf16>, %b: tensor<64x16xf16>) -> tensor<16x16xf32> {
    // f16 x f16 -> f32 exists on every chip, so the module stays valid.
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<16x64xf16>, tensor<64x16xf16> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}
