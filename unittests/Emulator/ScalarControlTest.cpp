//===- ScalarControlTest.cpp - Branches, PC and hardware registers --------===//
//
// SOPP branches (targets are PC + 4 + 4 * simm16; LLVM's MCInst holds the
// raw simm16), computed jumps through s_setpc/s_swappc/s_call, s_getreg and
// s_setreg of HW_REG_MODE, and s_memtime.
//
//===----------------------------------------------------------------------===//

#include "ScalarTest.h"

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

class ScalarControl : public ScalarChipTest {};

TEST_P(ScalarControl, ForwardAndBackwardBranches) {
  ScalarKernel k = kernel();
  k << R"(
  s_mov_b32 s10, 0
  s_branch .Lforward
  s_mov_b32 s10, 1          ; skipped
  s_mov_b32 s10, 2          ; skipped
.Lforward:
  s_add_u32 s10, s10, 10    ; 10
  s_branch .Lover
.Lback:
  s_add_u32 s10, s10, 100   ; reached by the backward branch
  s_branch .Ldone
.Lover:
  s_branch .Lback
  s_mov_b32 s10, 3          ; skipped
.Ldone:
)";
  k.expect("s10", 110, "forward then backward branch");
  k.run();
}

TEST_P(ScalarControl, ConditionalBranches) {
  ScalarKernel k = kernel();
  // Each block sets a bit of s10 when its branch is *not* taken.
  k << R"(
  s_mov_b32 s10, 0
  s_cmp_eq_u32 0, 0         ; SCC = 1
  s_cbranch_scc1 .L1
  s_or_b32 s10, s10, 1
.L1:
  s_cmp_eq_u32 0, 0
  s_cbranch_scc0 .L2        ; not taken
  s_or_b32 s10, s10, 2
.L2:
  s_cmp_eq_u32 0, 1         ; SCC = 0
  s_cbranch_scc0 .L3
  s_or_b32 s10, s10, 4
.L3:
  s_cmp_eq_u32 0, 1
  s_cbranch_scc1 .L4        ; not taken
  s_or_b32 s10, s10, 8
.L4:
  s_mov_b64 vcc, 0
  s_cbranch_vccz .L5
  s_or_b32 s10, s10, 16
.L5:
  s_mov_b64 vcc, 0
  s_cbranch_vccnz .L6       ; not taken
  s_or_b32 s10, s10, 32
.L6:
  s_mov_b32 vcc_lo, 0
  s_mov_b32 vcc_hi, 0x80000000 ; only the high half is non-zero
  s_cbranch_vccnz .L7
  s_or_b32 s10, s10, 64
.L7:
  s_mov_b32 vcc_lo, 0
  s_mov_b32 vcc_hi, 0x80000000
  s_cbranch_vccz .L8        ; not taken
  s_or_b32 s10, s10, 128
.L8:
  s_cbranch_execnz .L9      ; EXEC is all ones
  s_or_b32 s10, s10, 256
.L9:
  s_cbranch_execz .L10      ; not taken
  s_or_b32 s10, s10, 512
.L10:
  s_mov_b64 s[20:21], exec
  s_mov_b32 exec_lo, 0
  s_mov_b32 exec_hi, 1      ; lane 32 only
  s_cbranch_execz .L11      ; not taken
  s_or_b32 s10, s10, 1024
.L11:
  s_mov_b64 exec, 0
  s_cbranch_execz .L12
  s_or_b32 s10, s10, 2048
.L12:
  s_mov_b64 exec, 0
  s_cbranch_execnz .L13     ; not taken
  s_or_b32 s10, s10, 4096
.L13:
  s_mov_b64 exec, s[20:21]
  s_cbranch_cdbgsys .L14    ; no debugger: never taken
  s_or_b32 s10, s10, 8192
.L14:
)";
  k.expect("s10", 2 | 8 | 32 | 128 | 512 | 1024 | 4096 | 8192,
           "not-taken branches");
  k.run();
}

// A counted loop: s_sub/s_cmp/s_cbranch at the bottom, as compilers emit.
TEST_P(ScalarControl, CountedLoop) {
  ScalarKernel k = kernel();
  k << R"(
  s_mov_b32 s10, 0          ; sum
  s_mov_b32 s11, 100        ; counter
  s_mov_b32 s12, 0          ; iterations
.Lloop:
  s_add_u32 s10, s10, s11
  s_add_u32 s12, s12, 1
  s_sub_u32 s11, s11, 1
  s_cmp_lg_u32 s11, 0
  s_cbranch_scc1 .Lloop
  ; The same loop counting down with s_add_i32 -1 and SCC from s_cmp_gt.
  s_mov_b32 s13, 0
  s_mov_b32 s14, 10
.Lloop2:
  s_add_i32 s14, s14, -1
  s_add_u32 s13, s13, 3
  s_cmp_gt_i32 s14, 0
  s_cbranch_scc1 .Lloop2
)";
  k.expect("s10", 5050, "sum 1..100");
  k.expect("s12", 100, "iterations");
  k.expect("s13", 30, "second loop");
  k.expect("s14", 0, "second loop counter");
  k.run();
}

TEST_P(ScalarControl, GetPcSetPcSwapPcCall) {
  ScalarKernel k = kernel();
  k << R"(
  s_mov_b32 s20, 0
  ; s_getpc_b64 returns the address of the next instruction.
  s_getpc_b64 s[10:11]
  s_nop 0
  s_getpc_b64 s[12:13]
  s_sub_u32 s14, s12, s10   ; 8: two 4-byte instructions apart
  ; A computed jump.
  s_getpc_b64 s[16:17]
.Lpc:
  s_add_u32 s16, s16, .Ltarget-.Lpc
  s_addc_u32 s17, s17, 0
  s_setpc_b64 s[16:17]
  s_mov_b32 s20, 1          ; skipped
.Ltarget:
  s_or_b32 s20, s20, 2
  ; A call through s_swappc: the return address is PC + 4.
  s_getpc_b64 s[16:17]
.Lpc2:
  s_add_u32 s16, s16, .Lsub-.Lpc2
  s_addc_u32 s17, s17, 0
  s_swappc_b64 s[30:31], s[16:17]
.Lret:
  s_or_b32 s20, s20, 8
  ; A call through s_call_b64.
  s_call_b64 s[32:33], .Lsub2
.Lret2:
  s_or_b32 s20, s20, 32
  ; Check the return addresses against label arithmetic.
  s_getpc_b64 s[34:35]
.Lpc3:
  s_sub_u32 s36, s34, s30
  s_sub_u32 s37, s34, s32
  s_branch .Lfinish
.Lsub:
  s_or_b32 s20, s20, 4
  s_setpc_b64 s[30:31]
.Lsub2:
  s_or_b32 s20, s20, 16
  s_setpc_b64 s[32:33]
.Lfinish:
  s_mov_b32 s38, .Lpc3-.Lret
  s_mov_b32 s39, .Lpc3-.Lret2
)";
  k.expect("s14", 8, "getpc difference");
  k.expect("s20", 2 | 4 | 8 | 16 | 32, "path");
  k << "  s_sub_u32 s40, s36, s38"
    << "  s_sub_u32 s41, s37, s39";
  k.expect("s40", 0, "s_swappc return address is the next instruction");
  k.expect("s41", 0, "s_call return address is the next instruction");
  k.run();
}

TEST_P(ScalarControl, SetPcToANonInstructionFails) {
  ScalarKernel k = kernel();
  k << "  s_getpc_b64 s[10:11]"
    << "  s_add_u32 s10, s10, 2"
    << "  s_addc_u32 s11, s11, 0"
    << "  s_setpc_b64 s[10:11]";
  std::string error = k.runExpectingFailure();
  EXPECT_NE(error.find("is not the address of an instruction"),
            std::string::npos)
      << error;
}

// MODE = round [3:0], denorm [7:4], dx10_clamp [8], ieee [9]; the initial
// value comes from the kernel descriptor.
TEST_P(ScalarControl, ModeRegister) {
  ScalarKernel k = kernel();
  k.kernel.descriptorDirectives = R"(
    .amdhsa_float_round_mode_32 0
    .amdhsa_float_round_mode_16_64 0
    .amdhsa_float_denorm_mode_32 3
    .amdhsa_float_denorm_mode_16_64 3
    .amdhsa_dx10_clamp 1
    .amdhsa_ieee_mode 1)";
  k << "  s_getreg_b32 s10, hwreg(HW_REG_MODE)";
  k.expect("s10", 0x3f0, "initial MODE");
  // The FTZ division sequence: f32 denormals off, then back on.
  k << "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0"
    << "  s_getreg_b32 s11, hwreg(HW_REG_MODE)"
    << "  s_getreg_b32 s12, hwreg(HW_REG_MODE, 4, 2)"
    << "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3"
    << "  s_getreg_b32 s13, hwreg(HW_REG_MODE, 4, 2)";
  k.expect("s11", 0x3c0, "MODE with f32 denormals flushed");
  k.expect("s12", 0, "denorm32 field after clearing");
  k.expect("s13", 3, "denorm32 field after restoring");
  // s_setreg_b32 from an SGPR, a field in the middle, extra value bits
  // beyond the field's size ignored.
  k << "  s_mov_b32 s14, 0xfffffff5"
    << "  s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s14"
    << "  s_getreg_b32 s15, hwreg(HW_REG_MODE)"
    << "  s_getreg_b32 s16, hwreg(HW_REG_MODE, 2, 3)"
    << "  s_mov_b32 s17, 0"
    << "  s_setreg_b32 hwreg(HW_REG_MODE, 8, 2), s17"
    << "  s_getreg_b32 s18, hwreg(HW_REG_MODE)";
  k.expect("s15", 0x3f5, "round modes set");
  k.expect("s16", (0x3f5 >> 2) & 7, "field [4:2]");
  k.expect("s18", 0x0f5, "dx10_clamp and ieee cleared");
  // A save/restore of the whole register.
  k << "  s_setreg_b32 hwreg(HW_REG_MODE), s10"
    << "  s_getreg_b32 s19, hwreg(HW_REG_MODE)";
  k.expect("s19", 0x3f0, "MODE restored");
  k.run();
}

TEST_P(ScalarControl, UnmodelledHardwareRegistersFail) {
  {
    ScalarKernel k = kernel();
    k << "  s_getreg_b32 s10, hwreg(HW_REG_HW_ID)";
    std::string error = k.runExpectingFailure();
    EXPECT_NE(error.find("s_getreg of HW_REG_HW_ID (id 4) is not modelled"),
              std::string::npos)
        << error;
  }
  {
    // MODE bit 12 is an exception enable.
    ScalarKernel k = kernel();
    k << "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 12, 1), 1";
    std::string error = k.runExpectingFailure();
    EXPECT_NE(error.find("MODE bits 0x1000 are not modelled"),
              std::string::npos)
        << error;
  }
  {
    ScalarKernel k = kernel();
    k << "  s_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 0, 1), 0";
    std::string error = k.runExpectingFailure();
    EXPECT_NE(error.find("s_setreg of HW_REG_TRAPSTS"), std::string::npos)
        << error;
  }
}

TEST_P(ScalarControl, MemtimeIsMonotonic) {
  ScalarKernel k = kernel();
  k << "  s_memtime s[10:11]"
    << "  s_waitcnt lgkmcnt(0)"
    << "  s_nop 0"
    << "  s_memtime s[12:13]"
    << "  s_memrealtime s[14:15]"
    << "  s_memrealtime s[16:17]"
    << "  s_waitcnt lgkmcnt(0)"
    << "  s_sub_u32 s20, s12, s10"
    << "  s_subb_u32 s21, s13, s11"
    << "  s_sub_u32 s22, s16, s14"
    << "  s_subb_u32 s23, s17, s15"
    << "  s_cmp_gt_u32 s20, 0"
    << "  s_cselect_b32 s24, 1, 0"
    << "  s_cmp_gt_u32 s22, 0"
    << "  s_cselect_b32 s25, 1, 0";
  k.expect("s21", 0, "memtime difference (high)");
  k.expect("s24", 1, "memtime advances");
  k.expect("s23", 0, "memrealtime difference (high)");
  k.expect("s25", 1, "memrealtime advances");
  k.run();
}

// Scalar instructions the emulator does not implement stop the decode with
// their name rather than run with made-up semantics.
TEST_P(ScalarControl, UnimplementedScalarOpcodesFailAtLoad) {
  for (const char *text :
       {"s_scratch_load_dword s10, s[6:7], 0x0", "s_set_gpr_idx_on s10, 1",
        "s_cbranch_join s10", "s_setkill 1"}) {
    ScalarKernel k = kernel();
    k << std::string("  ") + text;
    std::string error = k.runExpectingFailure();
    EXPECT_NE(error.find("unimplemented opcode S_"), std::string::npos)
        << text << ": " << error;
  }
}

INSTANTIATE_SCALAR_CHIP_TESTS(ScalarControl);

} // namespace
