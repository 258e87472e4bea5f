// compiler-api.test: a type that does not parse (line 3).
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = crest.relu %x : tensor<4xf33>
  return %y : tensor<4xf32>
}
