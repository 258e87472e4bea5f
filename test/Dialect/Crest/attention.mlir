// RUN: crest-opt %s | FileCheck %s
// RUN: crest-opt %s | crest-opt | FileCheck %s

// Decode with grouped-query heads (32 query heads on 8 KV heads), a KV
// cache length, bottom-right causal masking and the log-sum-exp.
// CHECK-LABEL: func.func @decode
// CHECK: crest.attention %{{.*}}, %{{.*}}, %{{.*}} kv_length %{{.*}} : tensor<1xi32> causal = bottom_right qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x32x1x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16> -> tensor<1x32x1x128xf16>, tensor<1x32x1xf32>
func.func @decode(%q: tensor<1x32x1x128xf16>, %k: tensor<1x8x4096x128xf16>, %v: tensor<1x8x4096x128xf16>, %n: tensor<1xi32>) -> (tensor<1x32x1x128xf16>, tensor<1x32x1xf32>) {
  %o, %lse = crest.attention %q, %k, %v kv_length %n : tensor<1xi32> causal = bottom_right
         qk <lhs = f16, rhs = f16, acc = f32, out = f32>
         pv <lhs = f16, rhs = f16, acc = f32, out = f16>
         : tensor<1x32x1x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16> -> tensor<1x32x1x128xf16>, tensor<1x32x1xf32>
  return %o, %lse : tensor<1x32x1x128xf16>, tensor<1x32x1xf32>
}

// A boolean mask broadcast over batch and heads, an explicit scale, a
// sliding window, fp8 probabilities (gfx942's FNUZ) against an fp8 V, and
// a value head dimension other than the query's.
// CHECK-LABEL: func.func @prefill
// CHECK: crest.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<197x197xi1> causal = top_left window = 64 scale = 1.250000e-01 qk <lhs = bf16, rhs = bf16, acc = f32, out = f32> pv <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
func.func @prefill(%q: tensor<2x4x197x64xbf16>, %k: tensor<2x4x197x64xbf16>, %v: tensor<2x4x197x80xf8E4M3FNUZ>, %m: tensor<197x197xi1>) -> tensor<2x4x197x80xf32> {
  %o = crest.attention %q, %k, %v mask %m : tensor<197x197xi1> causal = top_left window = 64 scale = 0.125
         qk <lhs = bf16, rhs = bf16, acc = f32, out = f32>
         pv <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
         : tensor<2x4x197x64xbf16>, tensor<2x4x197x64xbf16>, tensor<2x4x197x80xf8E4M3FNUZ> -> tensor<2x4x197x80xf32>
  return %o : tensor<2x4x197x80xf32>
}
