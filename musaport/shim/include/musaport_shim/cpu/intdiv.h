// musaport CPU runtime: integer division by zero inside a kernel, as the GPU does it.
//
// A GPU's integer division never traps: `x / 0` and `x % 0` give a value, and
// PyTorch's CUDA kernels (remainder, fmod, floor_divide, div on integers) run
// into it.  PyTorch's own test_fmod_remainder_by_zero_integral pins what NVIDIA
// GPUs give: all ones for operands of 32 bits and fewer; for 64 bits,
// 0xffffffff when the dividend is not negative and -1 when it is.  On x86-64
// the same instruction raises SIGFPE and the process dies.
//
// So, within a kernel launch (and only there: a host division by zero is the
// program's own fault, as before), the runtime catches that trap, decodes the
// DIV or IDIV that raised it, writes the GPU's results into its destination
// registers and resumes after it.  The other trap of that instruction, the
// signed overflow INT_MIN / -1, gives the GPU's INT_MIN and remainder 0.
#pragma once

#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <cstring>

namespace musaport::cpu::intdiv {

#if defined(__x86_64__) && defined(__linux__)
inline constexpr bool kEmulated = true;

// x86 register numbers (ModRM, SIB, REX) to ucontext's general registers.
inline constexpr int kGreg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                  REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

// A DIV or IDIV (opcode F6 /6 /7 on bytes, F7 /6 /7 on words) as decoded at the faulting address.
struct Division {
  int bits = 0;           // operand width: 8, 16, 32 or 64
  bool is_signed = false;  // IDIV
  unsigned length = 0;     // bytes of the instruction: where execution resumes
  std::uint64_t divisor = 0;
};

inline std::int32_t read_i32(const unsigned char* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline std::uint64_t truncate(std::uint64_t v, int bits) { return bits == 64 ? v : v & ((1ull << bits) - 1); }

// Decode the instruction at `ip`; false when it is not a DIV/IDIV this runtime knows.
inline bool decode(const unsigned char* ip, const greg_t* regs, Division* d) {
  unsigned i = 0, rex = 0;
  bool word16 = false;
  for (; i < 4; ++i) {  // legacy prefixes: operand size matters, segment/rep prefixes do not
    const unsigned char b = ip[i];
    if (b == 0x66) word16 = true;
    else if (b != 0x2e && b != 0x3e && b != 0x26 && b != 0x36 && b != 0xf2 && b != 0xf3) break;
  }
  if (ip[i] == 0x64 || ip[i] == 0x65 || ip[i] == 0x67) return false;  // fs/gs or 32-bit addressing: not emitted
  if ((ip[i] & 0xf0) == 0x40) rex = ip[i++];
  const unsigned char opcode = ip[i++];
  if (opcode != 0xf6 && opcode != 0xf7) return false;
  const unsigned char modrm = ip[i++];
  const unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  if (reg != 6 && reg != 7) return false;
  d->is_signed = reg == 7;
  d->bits = opcode == 0xf6 ? 8 : (rex & 8) ? 64 : word16 ? 16 : 32;
  auto value = [&](unsigned n) { return static_cast<std::uint64_t>(regs[kGreg[n]]); };
  if (mod == 3) {  // a register operand
    const unsigned n = rm | ((rex & 1) << 3);
    std::uint64_t v = value(n);
    if (d->bits == 8 && rex == 0 && n >= 4) v = value(n - 4) >> 8;  // AH, CH, DH, BH
    d->divisor = truncate(v, d->bits);
    d->length = i;
    return true;
  }
  std::uint64_t address = 0;
  bool rip_relative = false;
  if (rm == 4) {  // SIB
    const unsigned char sib = ip[i++];
    const unsigned scale = sib >> 6, index = ((sib >> 3) & 7) | ((rex & 2) << 2), base = (sib & 7) | ((rex & 1) << 3);
    if (index != 4) address += value(index) << scale;
    if ((base & 7) == 5 && mod == 0) {
      address += static_cast<std::uint64_t>(static_cast<std::int64_t>(read_i32(ip + i)));
      i += 4;
    } else {
      address += value(base);
    }
  } else if (rm == 5 && mod == 0) {
    rip_relative = true;
  } else {
    address += value(rm | ((rex & 1) << 3));
  }
  if (mod == 1) {
    address += static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(ip[i])));
    i += 1;
  } else if (mod == 2 || rip_relative) {
    address += static_cast<std::uint64_t>(static_cast<std::int64_t>(read_i32(ip + i)));
    i += 4;
  }
  if (rip_relative) address += reinterpret_cast<std::uint64_t>(ip + i);  // relative to the next instruction
  std::uint64_t v = 0;
  std::memcpy(&v, reinterpret_cast<const void*>(address), static_cast<std::size_t>(d->bits / 8));
  d->divisor = truncate(v, d->bits);
  d->length = i;
  return true;
}

// Write the GPU's quotient and remainder where the instruction would have (AL/AH for bytes, (E/R)AX and
// (E/R)DX otherwise; a 32-bit result clears the upper half, as the instruction does).
inline void write_results(greg_t* regs, int bits, std::uint64_t quotient, std::uint64_t remainder) {
  auto& rax = reinterpret_cast<std::uint64_t&>(regs[REG_RAX]);
  auto& rdx = reinterpret_cast<std::uint64_t&>(regs[REG_RDX]);
  switch (bits) {
    case 8: rax = (rax & ~0xffffull) | (remainder & 0xff) << 8 | (quotient & 0xff); break;
    case 16:
      rax = (rax & ~0xffffull) | (quotient & 0xffff);
      rdx = (rdx & ~0xffffull) | (remainder & 0xffff);
      break;
    case 32: rax = quotient & 0xffffffffull; rdx = remainder & 0xffffffffull; break;
    default: rax = quotient; rdx = remainder; break;
  }
}

// The faulting division, finished as the GPU would finish it: true when `context` was a DIV/IDIV and now
// resumes after it.
inline bool emulate(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* regs = uc->uc_mcontext.gregs;
  const auto* ip = reinterpret_cast<const unsigned char*>(regs[REG_RIP]);
  Division d;
  if (!decode(ip, regs, &d)) return false;
  const std::uint64_t ones = truncate(~0ull, d.bits);
  // The dividend's high part holds its sign: AH for bytes, (E/R)DX otherwise.
  const std::uint64_t high = d.bits == 8 ? static_cast<std::uint64_t>(regs[REG_RAX]) >> 8
                                         : static_cast<std::uint64_t>(regs[REG_RDX]);
  const bool negative = d.is_signed && (truncate(high, d.bits) >> (d.bits - 1)) != 0;
  if (d.divisor == 0) {
    const std::uint64_t gpu = d.bits < 64 ? ones : negative ? ones : 0xffffffffull;
    write_results(regs, d.bits, gpu, gpu);
  } else {  // overflow: INT_MIN / -1 (or an unsigned quotient wider than the operand)
    write_results(regs, d.bits, truncate(static_cast<std::uint64_t>(regs[REG_RAX]), d.bits), 0);
  }
  regs[REG_RIP] += static_cast<greg_t>(d.length);
  return true;
}
#else
inline constexpr bool kEmulated = false;  // other hosts (aarch64: division by zero does not trap) need none
inline bool emulate(void*) { return false; }
#endif

}  // namespace musaport::cpu::intdiv
