//===- MfmaOps.h - How MFMA handlers are found -------------------*- C++
//-*-===//
//
// The MFMA handlers are registered from the chip table (MFMA.cpp). These
// entry points expose how, for tests.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_OPS_MFMAOPS_H
#define CREST_EMU_LIB_OPS_MFMAOPS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace crest::emu::mfma {

/// The handler-registry keys of every MC opcode LLVM's AMDGPU instruction
/// printer spells `mnemonic` (a chip-table MMA mnemonic, e.g.
/// "v_mfma_f32_32x32x8_f16" -> {"V_MFMA_F32_32X32X8F16"}). Empty if LLVM has
/// no such instruction.
llvm::SmallVector<std::string, 2> getHandlerKeys(llvm::StringRef mnemonic);

} // namespace crest::emu::mfma

#endif // CREST_EMU_LIB_OPS_MFMAOPS_H
