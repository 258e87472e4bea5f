// fp8 on CDNA3 is the FNUZ flavour. Attaching gfx942 verifies; attaching
// gfx950 (OCP fp8) is rejected with a diagnostic naming the flavour gfx950
// reads:
//   crest-opt examples/fp8-gfx942.mlir --crest-attach-target=chip=gfx942
//   crest-opt examples/fp8-gfx942.mlir --crest-attach-target=chip=gfx950
func.func @fp8_gemm(%a: tensor<64x512xf8E4M3FNUZ>, %b: tensor<512x64xf8E4M3FNUZ>) -> tensor<64x64xbf16> {
  %c = crest.matmul %a, %b
         precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = bf16>
         : tensor<64x512xf8E4M3FNUZ>, tensor<512x64xf8E4M3FNUZ> -> tensor<64x64xbf16>
  return %c : tensor<64x64xbf16>
}
