// One post-LN transformer encoder block as a crest graph: multi-head
// self-attention (4 heads of 32 over 64 tokens of width 128), a GELU feed-
// forward layer of width 512, residual adds and two layer norms.
//
//   q, k, v = x Wq_h, x Wk_h, x Wv_h        (per head h; Wq holds 1/sqrt(32))
//   a       = mean_h(softmax(q k^T) v Wo_h)  (the heads' output projections)
//   n       = layer_norm(x + a)
//   y       = layer_norm(n + gelu(n W1 + b1) W2 + b2)
//
// Matrix operands are fp16 with fp32 accumulation; everything else is fp32.
// The batch dimension of batch_matmul carries the heads (a batch of 1
// broadcasts). Compile and run it (scripts/demo.sh does this):
//   crest-compile examples/transformer-block.mlir --target=gfx942 -o block.crest
//   crest-run block.crest --input x=x.npy ... --verify --report
func.func @block(%x: tensor<1x64x128xf32> {crest.name = "x"},
                 %wq: tensor<4x128x32xf16> {crest.name = "wq"},
                 %wk: tensor<4x128x32xf16> {crest.name = "wk"},
                 %wv: tensor<4x128x32xf16> {crest.name = "wv"},
                 %wo: tensor<4x32x128xf16> {crest.name = "wo"},
                 %g1: tensor<128xf32> {crest.name = "ln1_scale"},
                 %be1: tensor<128xf32> {crest.name = "ln1_bias"},
                 %w1: tensor<1x128x512xf16> {crest.name = "w1"},
                 %b1: tensor<512xf32> {crest.name = "b1"},
                 %w2: tensor<1x512x128xf16> {crest.name = "w2"},
                 %b2: tensor<128xf32> {crest.name = "b2"},
                 %g2: tensor<128xf32> {crest.name = "ln2_scale"},
                 %be2: tensor<128xf32> {crest.name = "ln2_bias"})
    -> (tensor<1x64x128xf32> {crest.name = "y"}) {
  %xh = crest.cast %x : tensor<1x64x128xf32> to tensor<1x64x128xf16>

  // Attention: projections (batch of 1 in x broadcasts over the heads).
  %q = crest.batch_matmul %xh, %wq precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x64x128xf16>, tensor<4x128x32xf16> -> tensor<4x64x32xf32>
  %qh = crest.cast %q : tensor<4x64x32xf32> to tensor<4x64x32xf16>
  %k = crest.batch_matmul %xh, %wk precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x64x128xf16>, tensor<4x128x32xf16> -> tensor<4x64x32xf32>
  %kh = crest.cast %k : tensor<4x64x32xf32> to tensor<4x64x32xf16>
  %v = crest.batch_matmul %xh, %wv precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x64x128xf16>, tensor<4x128x32xf16> -> tensor<4x64x32xf32>
  %vh = crest.cast %v : tensor<4x64x32xf32> to tensor<4x64x32xf16>
  %s = crest.batch_matmul %qh, %kh transpose_rhs
         precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = workgroup, stages = 2>
         : tensor<4x64x32xf16>, tensor<4x64x32xf16> -> tensor<4x64x64xf32>
  %p = crest.softmax %s : tensor<4x64x64xf32>
  %ph = crest.cast %p : tensor<4x64x64xf32> to tensor<4x64x64xf16>
  %o = crest.batch_matmul %ph, %vh precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x64x64xf16>, tensor<4x64x32xf16> -> tensor<4x64x32xf32>
  %oh = crest.cast %o : tensor<4x64x32xf32> to tensor<4x64x32xf16>
  %ah = crest.batch_matmul %oh, %wo precision <lhs = f16, rhs = f16, acc = f32, out = f32>
          : tensor<4x64x32xf16>, tensor<4x32x128xf16> -> tensor<4x64x128xf32>
  %a = crest.reduce_mean %ah dims [0] keep_dims : tensor<4x64x128xf32> -> tensor<1x64x128xf32>

  // Residual and the first layer norm.
  %h1 = crest.add %x, %a : tensor<1x64x128xf32>, tensor<1x64x128xf32> -> tensor<1x64x128xf32>
  %n1 = crest.layer_norm %h1, %g1, %be1
          : tensor<1x64x128xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<1x64x128xf32>
  %n1h = crest.cast %n1 : tensor<1x64x128xf32> to tensor<1x64x128xf16>

  // Feed-forward: bias + GELU + cast and bias + residual fuse into the
  // matmuls' epilogues.
  %f = crest.batch_matmul %n1h, %w1 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x64x128xf16>, tensor<1x128x512xf16> -> tensor<1x64x512xf32>
  %fb = crest.add %f, %b1 : tensor<1x64x512xf32>, tensor<512xf32> -> tensor<1x64x512xf32>
  %fg = crest.gelu %fb : tensor<1x64x512xf32>
  %fh = crest.cast %fg : tensor<1x64x512xf32> to tensor<1x64x512xf16>
  %f2 = crest.batch_matmul %fh, %w2 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
          : tensor<1x64x512xf16>, tensor<1x512x128xf16> -> tensor<1x64x128xf32>
  %f2b = crest.add %f2, %b2 : tensor<1x64x128xf32>, tensor<128xf32> -> tensor<1x64x128xf32>
  %h2 = crest.add %f2b, %n1 : tensor<1x64x128xf32>, tensor<1x64x128xf32> -> tensor<1x64x128xf32>
  %y = crest.layer_norm %h2, %g2, %be2
         : tensor<1x64x128xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<1x64x128xf32>
  return %y : tensor<1x64x128xf32>
}
