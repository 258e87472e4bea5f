// RUN: crest-opt %s --split-input-file --verify-diagnostics

// rank
func.func @case0(%q: tensor<4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op query must be [batch, heads, length, head dim], got 4x64x32}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// batch
func.func @case1(%q: tensor<2x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<2x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op query, key and value must have one batch size, got 2, 1 and 1}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<2x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<2x4x64x32xf16>
  return %o : tensor<2x4x64x32xf16>
}

// -----

// kv mismatch
func.func @case2(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x63x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op value 1x4x63x32 must have the key's heads and length 1x4x64x32}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x63x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// gqa
func.func @case3(%q: tensor<1x6x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x6x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op 6 query heads are not a multiple of 4 key/value heads}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x6x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x6x64x32xf16>
  return %o : tensor<1x6x64x32xf16>
}

// -----

// head dim
func.func @case4(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x16xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op key head dimension 16 differs from the query's 32}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x16xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// result
func.func @case5(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x48xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op result shape 1x4x64x32 must be [batch, query heads, query length, value head dim] = 1x4x64x48}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x48xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// kv_length
func.func @case6(%q: tensor<2x4x64x32xf16>, %k: tensor<2x4x64x32xf16>, %v: tensor<2x4x64x32xf16>, %n: tensor<3xi32>) -> tensor<2x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op kv_length shape 3 must be [batch] = [2]}}
  %o = crest.attention %q, %k, %v kv_length %n : tensor<3xi32> qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16> -> tensor<2x4x64x32xf16>
  return %o : tensor<2x4x64x32xf16>
}

// -----

// mask
func.func @case7(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x80x32xf16>, %v: tensor<1x4x80x32xf16>, %m: tensor<64x64xi1>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op mask 64x64 does not broadcast to the scores 1x4x64x80}}
  %o = crest.attention %q, %k, %v mask %m : tensor<64x64xi1> qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x80x32xf16>, tensor<1x4x80x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// window without causal
func.func @case8(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op a sliding window needs a causal mask (causal = top_left or bottom_right)}}
  %o = crest.attention %q, %k, %v window = 16 qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// window zero
func.func @case9(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op window = 0 must be positive}}
  %o = crest.attention %q, %k, %v causal = top_left window = 0 qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// scale
func.func @case10(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op scale = -1.000000e+00 must be finite and positive}}
  %o = crest.attention %q, %k, %v scale = -1.0 qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// qk lhs
func.func @case11(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op qk lhs = 'bf16' must be 'f16' (the query's element type)}}
  %o = crest.attention %q, %k, %v qk <lhs = bf16, rhs = bf16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// qk out
func.func @case12(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op qk out = 'f16' must be 'f32' (the softmax reads f32 scores)}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f16> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// pv acc
func.func @case13(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op pv acc = 'f16' must be 'f32' (the output accumulates in f32)}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f16, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// pv out
func.func @case14(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @+1 {{'crest.attention' op pv out = 'f32' must be 'f16' (the result's element type)}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// pv lhs: tf32 is a multiply mode, not a type the probabilities are stored in
func.func @case15(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32> {
  // expected-error @+1 {{'crest.attention' op pv lhs = 'tf32': the probabilities are rounded to f32, f16, bf16 or an fp8 type}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = tf32, rhs = tf32, acc = f32, out = f32> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf32> -> tensor<1x4x64x32xf32>
  return %o : tensor<1x4x64x32xf32>
}

// -----

// lse
func.func @case16(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> (tensor<1x4x64x32xf16>, tensor<1x4x32xf32>) {
  // expected-error @+1 {{'crest.attention' op lse shape 1x4x32 must be [batch, query heads, query length] = 1x4x64}}
  %o, %l = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>, tensor<1x4x32xf32>
  return %o, %l : tensor<1x4x64x32xf16>, tensor<1x4x32xf32>
}

// -----

// Under a target, each product needs a matrix instruction: gfx90a has no fp8.
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @fp8_on_gfx90a(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf8E4M3FNUZ>) -> tensor<1x4x64x32xf16> {
    // expected-error @+1 {{'crest.attention' op pv: gfx90a has no matrix instruction for}}
    %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf8E4M3FNUZ> -> tensor<1x4x64x32xf16>
    return %o : tensor<1x4x64x32xf16>
  }
}
