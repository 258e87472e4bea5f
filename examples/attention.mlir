// Grouped-query decode attention: one new token per sequence (2
// sequences), 8 query heads sharing 2 key/value heads, head dim 64, a KV
// cache of 512 slots filled to kv_length per sequence, the causal mask
// anchored at the last key (bottom_right) and the log-sum-exp returned.
// crest-compile turns it into one kernel that splits the cache across
// workgroups (docs/Attention.md).
func.func @decode(%q: tensor<2x8x1x64xf16> {crest.name = "q"},
                  %k: tensor<2x2x512x64xf16> {crest.name = "k"},
                  %v: tensor<2x2x512x64xf16> {crest.name = "v"},
                  %len: tensor<2xi32> {crest.name = "kv_length"})
    -> (tensor<2x8x1x64xf16> {crest.name = "out"},
        tensor<2x8x1xf32> {crest.name = "lse"}) {
  %o, %lse = crest.attention %q, %k, %v kv_length %len : tensor<2xi32>
         causal = bottom_right
         qk <lhs = f16, rhs = f16, acc = f32, out = f32>
         pv <lhs = f16, rhs = f16, acc = f32, out = f16>
         : tensor<2x8x1x64xf16>, tensor<2x2x512x64xf16>, tensor<2x2x512x64xf16>
           -> tensor<2x8x1x64xf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x64xf16>, tensor<2x8x1xf32>
}
