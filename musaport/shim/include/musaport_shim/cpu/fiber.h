// musaport CPU runtime: fatal error reporting and fiber stacks.
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace musaport::cpu {

// Print one line "musaport: error: <message><tail>" on stderr, after what the kernel printed.
inline void print_error_line(const char* tail, const char* format, va_list args) {
  std::fflush(stdout);
  char message[1024];
  std::vsnprintf(message, sizeof(message), format, args);
  std::fprintf(stderr, "musaport: error: %s%s\n", message, tail);
  std::fflush(stderr);
}

// Print one line "musaport: error: ..." and abort.  Kernel faults (partial
// barriers, broken warp operations, bad launches from device code) are
// programming errors that a CPU run must surface, never hang on.
[[noreturn]] inline void die(const char* format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] inline void die(const char* format, ...) {
  va_list args;
  va_start(args, format);
  print_error_line("", format, args);
  va_end(args);
  std::abort();
}

inline size_t page_bytes() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// Usable stack per GPU thread: MUSAPORT_FIBER_STACK_KB (64..8192, default 128).
inline size_t fiber_stack_bytes() {
  static const size_t bytes = [] {
    size_t kb = 128;
    if (const char* env = std::getenv("MUSAPORT_FIBER_STACK_KB")) {
      const long v = std::strtol(env, nullptr, 10);
      if (v >= 64 && v <= 8192) kb = static_cast<size_t>(v);
    }
    return (kb * 1024 + page_bytes() - 1) / page_bytes() * page_bytes();
  }();
  return bytes;
}

// One mmap'd fiber stack with an inaccessible guard page below it: a deep
// recursion faults on the guard page instead of running into the next stack.
class FiberStack {
 public:
  FiberStack() = default;
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;
  FiberStack(FiberStack&& other) noexcept { swap(other); }
  FiberStack& operator=(FiberStack&& other) noexcept {
    swap(other);
    return *this;
  }
  ~FiberStack() { unmap(); }

  // Map the stack on first use; later blocks reuse it.
  void ensure(size_t usable) {
    if (mapping_ != nullptr && usable_ == usable) return;
    unmap();
    const size_t total = usable + page_bytes();
    void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) die("cannot map a %zu KiB fiber stack: %s", usable / 1024, std::strerror(errno));
    if (mprotect(p, page_bytes(), PROT_NONE) != 0) die("cannot protect a fiber guard page: %s", std::strerror(errno));
    mapping_ = static_cast<char*>(p);
    usable_ = usable;
  }

  char* base() const { return mapping_ + page_bytes(); }  // lowest usable byte
  size_t size() const { return usable_; }
  bool guard_contains(const void* addr) const {
    const char* a = static_cast<const char*>(addr);
    return mapping_ != nullptr && a >= mapping_ && a < mapping_ + page_bytes();
  }

 private:
  void unmap() {
    if (mapping_ != nullptr) munmap(mapping_, usable_ + page_bytes());
    mapping_ = nullptr;
    usable_ = 0;
  }
  void swap(FiberStack& other) noexcept {
    char* m = mapping_;
    size_t u = usable_;
    mapping_ = other.mapping_;
    usable_ = other.usable_;
    other.mapping_ = m;
    other.usable_ = u;
  }

  char* mapping_ = nullptr;
  size_t usable_ = 0;
};

// ---- switching between fibers
//
// Portable implementation: ucontext (getcontext/makecontext/swapcontext).
// glibc's swapcontext also saves and restores the signal mask, one system
// call per switch, which dominates barrier-heavy kernels; on x86-64 a
// ten-instruction switch of the callee-saved registers replaces it.
// -DMUSAPORT_USE_UCONTEXT forces the portable path (e.g. for sanitizers).
#if defined(__x86_64__) && !defined(MUSAPORT_USE_UCONTEXT)
#define MUSAPORT_FAST_FIBER_SWITCH 1
#else
#define MUSAPORT_FAST_FIBER_SWITCH 0
#endif

#if MUSAPORT_FAST_FIBER_SWITCH
// musaport_fiber_switch(&save_sp, next_sp): push the callee-saved registers
// (and the SSE/x87 control words) on the current stack, store the stack
// pointer in *save_sp, load next_sp, pop the same set, return into the fiber.
// A new fiber's stack is prepared so that this `ret` lands in
// musaport_fiber_start, which calls the entry function kept in r12.
// Weak, so that every translation unit may carry this header-only copy.
__asm__(
    ".pushsection .text\n"
    ".weak musaport_fiber_switch\n"
    ".hidden musaport_fiber_switch\n"
    ".type musaport_fiber_switch,@function\n"
    "musaport_fiber_switch:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  stmxcsr (%rsp)\n"
    "  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n"
    "  fldcw 4(%rsp)\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size musaport_fiber_switch, .-musaport_fiber_switch\n"
    ".weak musaport_fiber_start\n"
    ".hidden musaport_fiber_start\n"
    ".type musaport_fiber_start,@function\n"
    "musaport_fiber_start:\n"
    "  callq *%r12\n"
    "  ud2\n"
    ".size musaport_fiber_start, .-musaport_fiber_start\n"
    ".popsection\n");
extern "C" void musaport_fiber_switch(void** save_sp, void* next_sp);
extern "C" void musaport_fiber_start();
#endif

// Where a suspended GPU thread resumes.
struct FiberContext {
#if MUSAPORT_FAST_FIBER_SWITCH
  void* sp = nullptr;
#else
  ucontext_t uc;
#endif
};

// How far below its stack's top fiber `index` starts.  The stacks are page-aligned and of one size, so
// without an offset the frames a block switches through (hundreds of GPU threads in turn, at each
// barrier or warp operation) would lie at one address modulo the caches' set strides and evict each
// other: a fiber resumed would wait on memory for its saved registers.  A different cache line of the
// page (an odd step over 64 lines) and a different page of eight spread them over the sets; the stack
// is mapped that much larger (fiber_stack_mapping), so the usable size stays what was asked for.
inline constexpr size_t kFiberSkewPages = 8;
inline size_t fiber_stack_skew(unsigned index) {
  return (index * 17u % 64u) * 64u + (index / 64u % kFiberSkewPages) * 4096u;
}
inline size_t fiber_stack_mapping() { return fiber_stack_bytes() + kFiberSkewPages * 4096u; }

// Make `ctx` start `entry()` on `stack`, `skew` bytes below its top, when first switched to.  `entry`
// must never return (it switches away when its GPU thread is done).
inline void fiber_prepare(FiberContext& ctx, const FiberStack& stack, void (*entry)(), size_t skew = 0) {
#if MUSAPORT_FAST_FIBER_SWITCH
  // Initial frame, from the stack pointer up: control words, r15, r14, r13,
  // r12 (= entry), rbx, rbp, return address (= musaport_fiber_start).  The
  // return slot sits 8 below a 16-byte boundary, so `entry` is entered with
  // the stack alignment of a normal call.
  char* top = stack.base() + stack.size() - skew;
  top -= reinterpret_cast<uintptr_t>(top) % 16;
  void** frame = reinterpret_cast<void**>(top - 64);
  const unsigned int control[2] = {0x1F80u /* MXCSR default */, 0x037Fu /* x87 control default */};
  std::memcpy(&frame[0], control, sizeof(control));
  frame[1] = frame[2] = frame[3] = nullptr;                  // r15 r14 r13
  frame[4] = reinterpret_cast<void*>(entry);                 // r12
  frame[5] = frame[6] = nullptr;                             // rbx rbp
  frame[7] = reinterpret_cast<void*>(&musaport_fiber_start);  // return address
  ctx.sp = frame;
#else
  getcontext(&ctx.uc);
  ctx.uc.uc_stack.ss_sp = stack.base();
  ctx.uc.uc_stack.ss_size = stack.size() - skew;
  ctx.uc.uc_link = nullptr;
  makecontext(&ctx.uc, entry, 0);
#endif
}

// Suspend the caller into `save` (nullptr: the caller is finished and never
// resumed) and continue `next`.
inline void fiber_switch(FiberContext* save, FiberContext& next) {
#if MUSAPORT_FAST_FIBER_SWITCH
  void* discard;
  musaport_fiber_switch(save != nullptr ? &save->sp : &discard, next.sp);
#else
  if (save != nullptr) {
    swapcontext(&save->uc, &next.uc);
  } else {
    setcontext(&next.uc);
  }
#endif
}

}  // namespace musaport::cpu
