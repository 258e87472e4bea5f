// RUN: crest-opt %s -split-input-file -verify-diagnostics

// The verifier of #crest.launch (Launch.cpp) and where the dialect accepts
// a `crest.launch` attribute (CrestDialect::verifyOperationAttribute).

func.func @flat_kernel(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'kernel' must name a kernel in a gpu.module, @module::@kernel, got @relu}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @relu, grid = [1, 1, 1], block = [64, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @deep_kernel(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'kernel' must name a kernel in a gpu.module, @module::@kernel, got @a::@b::@c}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @a::@b::@c, grid = [1, 1, 1], block = [64, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @grid_rank(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'grid' must have 3 sizes [x, y, z], got 2}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 1], block = [64, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @block_rank(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'block' must have 3 sizes [x, y, z], got 4}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 1, 1], block = [64, 1, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @zero_grid(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'grid' size y must be in [1, 2^31), got 0}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 0, 1], block = [64, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @negative_block(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'block' size x must be in [1, 2^31), got -64}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 1, 1], block = [-64, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @huge_grid(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'grid' size z must be in [1, 2^31), got 2147483648}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 1, 2147483648], block = [64, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @missing_block(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{struct is missing required parameter: block}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 1, 1]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// The old dictionary form is no launch description.
func.func @dictionary(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'crest.launch' must be a #crest.launch attribute, got {block = array<i32: 64, 1, 1>, grid = array<i32: 1, 1, 1>, kernel = @k::@relu}}}
  %0 = crest.relu %x {crest.launch = {kernel = @k::@relu, grid = array<i32: 1, 1, 1>, block = array<i32: 64, 1, 1>}} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// Only crest ops are launched.
// expected-error @+1 {{'crest.launch' must be attached to a crest op, not 'func.func'}}
func.func @on_func() attributes {crest.launch = #crest.launch<kernel = @k::@f, grid = [1, 1, 1], block = [64, 1, 1]>} {
  return
}

// -----

// Workspaces are static tensor types.
func.func @workspace_not_type(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'workspace' #0 must be a non-empty static tensor type, got 4096 : i64}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 1, 1], block = [64, 1, 1], workspace = [4096]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// Semaphores are i32 counters.
func.func @semaphores_f32(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{#crest.launch 'semaphores' #1 must be a non-empty static tensor type of i32, got tensor<8xf32>}}
  %0 = crest.relu %x {crest.launch = #crest.launch<kernel = @k::@relu, grid = [1, 1, 1], block = [64, 1, 1], semaphores = [tensor<4xi32>, tensor<8xf32>]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}
