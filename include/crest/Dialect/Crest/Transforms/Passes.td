//===- Passes.td - Crest graph-level passes ----------------*- tablegen -*-===//

#ifndef CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD
#define CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CrestAttachTargetPass : Pass<"crest-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach a #crest.target to the module";
  let description = [{
    Sets the module's `crest.target` attribute to the chip named by `chip`
    (and `wave-size`, 0 for the chip's default), replacing any target it had.
    The module is then verified against that chip: every contraction's
    precision must have a matrix instruction on it. An unknown chip fails the
    pass with a diagnostic that lists the known chips.

    ```sh
    crest-opt model.mlir --crest-attach-target=chip=gfx942
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201)">,
    Option<"waveSize", "wave-size", "unsigned", /*default=*/"0",
           "Wave size (32 or 64; 0 = the chip's default)">,
  ];
}

#endif // CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD
