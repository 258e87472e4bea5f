//===- DS.cpp - LDS (data share) instructions
//--------------------------------===//

#include "../Machine.h"

using namespace crest::emu;

void crest::emu::registerDSHandlers(HandlerRegistry &registry) {}
