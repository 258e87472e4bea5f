//===- MFMA.cpp - Matrix fused multiply-add instructions
//---------------------===//

#include "../Machine.h"

using namespace crest::emu;

void crest::emu::registerMFMAHandlers(HandlerRegistry &registry) {}
