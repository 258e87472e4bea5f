//===- CodeObject.h - HSA code objects for the emulator ---------*- C++ -*-===//
//
// The emulator loads code objects with the shared reader
// (crest/Format/CodeObject.h); these are its names inside crest::emu.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_CODEOBJECT_H
#define CREST_EMU_CODEOBJECT_H

#include "crest/Format/CodeObject.h"

namespace crest::emu {
using hsa::CodeObject;
using hsa::Kernel;
using hsa::KernelArg;
using hsa::KernelDescriptor;
using hsa::kKernargPreloadPrologueBytes;
using hsa::kMaxUserSgprs;
} // namespace crest::emu

#endif // CREST_EMU_CODEOBJECT_H
