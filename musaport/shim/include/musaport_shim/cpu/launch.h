// musaport CPU runtime: kernel launches, worker threads, dynamic shared memory.
//
// Launch contract (what the port's launch rewriter emits):
//     K<<<grid, block, shmem, stream>>>(args...);
//  -> musaport_launch(grid, block, shmem, stream, [&]() { K(args...); });
// shmem and stream are 0 when the launch omits them.  The lambda is called
// once per GPU thread, with threadIdx/blockIdx/blockDim/gridDim set.  The
// launch is synchronous: the grid has finished when musaport_launch returns.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../musa_runtime_api.h"
#include "block.h"
#include "intdiv.h"

// Dynamic shared memory (extern __shared__): one buffer per OS thread, the
// only block running on that thread owns it.  `extern __shared__ T name[];`
// declares a thread-local symbol `name`; the link step defines it as an alias
// of this buffer (--defsym, see the README).  C linkage keeps the symbol name
// fixed; `used` keeps it emitted when nothing in the unit names it.
//
// Some compilers also reference a thread-local *init hook* for each such
// symbol (g++: `_ZTH<name>`, weak, called before the first access, and in
// templates called unconditionally).  An unresolved hook means "no dynamic
// initialiser", so the link step points it at this no-op.  (g++ users may
// instead compile with -fno-extern-tls-init, which drops the hooks.)
extern "C" {
alignas(256) __attribute__((used)) inline thread_local unsigned char
    musaport_dynamic_shared_tls[musaport::rt::kDynamicSharedCapacity];
__attribute__((used)) inline void musaport_tls_init_noop() {}
}

namespace musaport::cpu {

inline void* dynamic_shared() { return musaport_dynamic_shared_tls; }

struct Worker;
inline thread_local Worker* tls_worker = nullptr;

// ---- the runtime's signal handlers: each handles the faults that are its own and passes the others on.
// SIGSEGV: a fault on a fiber stack's guard page is reported, not a bare SIGSEGV; SIGFPE: an integer
// division by zero in a kernel gets the GPU's result (intdiv.h).
template <int Sig>
inline struct sigaction& previous_action() {
  static struct sigaction previous;
  return previous;
}

// Not ours: to the handler that was there before, or that one restored, so the fault happens again and
// ends the process as it would have.
template <int Sig>
inline void pass_on(siginfo_t* info, void* context) {
  struct sigaction& previous = previous_action<Sig>();
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(Sig, info, context);
    return;
  }
  sigaction(Sig, &previous, nullptr);
}

inline void on_segv(int sig, siginfo_t* info, void* context);
inline void on_fpe(int sig, siginfo_t* info, void* context);

// Signal handlers need a stack of their own to run after a stack overflow.
class AltSignalStack {
 public:
  AltSignalStack() {
    stack_t current;
    if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;  // the program has one
    const size_t bytes = 64 * 1024;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    stack_t s{};
    s.ss_sp = p;
    s.ss_size = bytes;
    if (sigaltstack(&s, nullptr) == 0) {
      memory_ = p;
      bytes_ = bytes;
    } else {
      munmap(p, bytes);
    }
  }
  ~AltSignalStack() {
    if (memory_ == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(memory_, bytes_);
  }
  AltSignalStack(const AltSignalStack&) = delete;
  AltSignalStack& operator=(const AltSignalStack&) = delete;

 private:
  void* memory_ = nullptr;
  size_t bytes_ = 0;
};

// Once per process and signal.  (A function-local static, not std::call_once: call_once
// uses libstdc++ thread-local symbols, and the runtime must not add undefined
// TLS references next to the extern __shared__ ones the link step aliases.)
template <int Sig, void (*Handler)(int, siginfo_t*, void*)>
inline void install_handler() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_sigaction = Handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    return sigaction(Sig, &action, &previous_action<Sig>()) == 0;
  }();
  (void)installed;
}

// Per-OS-thread execution state: the block runner (with its fiber stacks)
// and a signal stack for overflow reports.
struct Worker {
  Worker() {
    tls_worker = this;
    install_handler<SIGSEGV, on_segv>();
    if (intdiv::kEmulated) install_handler<SIGFPE, on_fpe>();
  }
  ~Worker() { tls_worker = nullptr; }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  AltSignalStack signal_stack;
  BlockRunner runner;
};

inline void on_segv(int sig, siginfo_t* info, void* context) {
  Worker* w = tls_worker;
  uint3 t;
  if (w != nullptr && w->runner.guard_hit(info->si_addr, &t)) {
    const uint3 b = w->runner.block_index();
    char line[256];
    const int len = std::snprintf(line, sizeof(line),
                                  "musaport: error: fiber stack overflow in block (%u,%u,%u) thread (%u,%u,%u); "
                                  "raise MUSAPORT_FIBER_STACK_KB (now %zu)\n",
                                  b.x, b.y, b.z, t.x, t.y, t.z, fiber_stack_bytes() / 1024);
    if (len > 0) (void)!write(2, line, static_cast<size_t>(len));
    std::abort();
  }
  pass_on<SIGSEGV>(info, context);
}

// Integer division traps inside a kernel become the GPU's results; any other SIGFPE (a host division
// by zero, a trap outside a launch) goes to the handler that was there before, or kills as it would have.
inline void on_fpe(int sig, siginfo_t* info, void* context) {
  Worker* w = tls_worker;
  if (w != nullptr && w->runner.active() && (info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF) &&
      intdiv::emulate(context))
    return;
  pass_on<SIGFPE>(info, context);
}

inline Worker& this_worker() {
  static thread_local Worker worker;
  return worker;
}

inline void BlockRunner::fiber_main() {
  BlockRunner& runner = tls_worker->runner;
  runner.invoke_kernel();
  runner.finish_fiber_lane();
}

// The runner of the block the calling GPU thread belongs to.
inline BlockRunner& device_runner(const char* what, const char* file, int line) {
  Worker* w = tls_worker;
  if (w == nullptr || !w->runner.active()) die("%s called outside a kernel launch at %s:%d", what, file, line);
  return w->runner;
}

struct Grid {
  dim3 grid, block;
  KernelBody body;
  unsigned long long blocks;
  mutable std::atomic<Fault> fault{Fault::None};  // the first fault of a block stops the grid
};

// Blocks are numbered with x fastest, then y, then z.  Returns false once the
// grid has faulted (this block or another worker's): no further block starts.
inline bool run_block(Worker& worker, const Grid& g, unsigned long long linear) {
  const unsigned long long gx = g.grid.x, gy = g.grid.y;
  const uint3 b{static_cast<unsigned>(linear % gx), static_cast<unsigned>(linear / gx % gy),
                static_cast<unsigned>(linear / (gx * gy))};
  musaport_indices& indices = *musaport_indices_here();
  indices.block_idx = b;
  indices.block_dim = g.block;
  indices.grid_dim = g.grid;
  ::blockDim = g.block;  // for code read as written (the CPU view reads the copies above)
  ::gridDim = g.grid;
  const Fault fault = worker.runner.run_block(g.body, g.block, b);
  if (fault != Fault::None) {
    Fault none = Fault::None;
    g.fault.compare_exchange_strong(none, fault);
    return false;
  }
  return g.fault.load(std::memory_order_relaxed) == Fault::None;
}

// MUSAPORT_CPU_WORKERS: OS threads that run blocks.  Unset or 1: the calling
// thread runs all blocks in order (deterministic).  N > 1: N threads take
// blocks dynamically.  "auto": one per hardware thread.
inline unsigned configured_workers() {
  static const unsigned workers = [] {
    const char* env = std::getenv("MUSAPORT_CPU_WORKERS");
    if (env == nullptr || *env == '\0') return 1u;
    if (std::strcmp(env, "auto") == 0) return std::max(1u, std::thread::hardware_concurrency());
    const long v = std::strtol(env, nullptr, 10);
    return v >= 1 && v <= 1024 ? static_cast<unsigned>(v) : 1u;
  }();
  return workers;
}

// Threads that help the launching thread run the blocks of one grid at a
// time.  Created on first use and kept (parked on a condition variable) for
// the life of the process.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned helpers) : helpers_(helpers) {
    for (unsigned i = 0; i < helpers; ++i) std::thread([this] { helper_loop(); }).detach();
  }

  void run(const Grid& g) {
    std::lock_guard<std::mutex> one_grid_at_a_time(launch_mutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      grid_ = &g;
      next_block_.store(0, std::memory_order_relaxed);
      busy_ = helpers_;  // every helper takes part in every grid, even one that starts late
      ++generation_;
    }
    wake_.notify_all();
    work(g);
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return busy_ == 0; });
    grid_ = nullptr;
  }

 private:
  void helper_loop() {
    unsigned long long seen = 0;
    for (;;) {
      const Grid* g;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen && grid_ != nullptr; });
        seen = generation_;
        g = grid_;
      }
      work(*g);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) finished_.notify_all();
    }
  }

  void work(const Grid& g) {
    Worker& worker = this_worker();
    for (;;) {
      const unsigned long long b = next_block_.fetch_add(1, std::memory_order_relaxed);
      if (b >= g.blocks || !run_block(worker, g, b)) return;
    }
  }

  std::mutex launch_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const Grid* grid_ = nullptr;
  unsigned long long generation_ = 0;
  const unsigned helpers_;
  unsigned busy_ = 0;
  std::atomic<unsigned long long> next_block_{0};
};

inline WorkerPool& worker_pool() {
  static WorkerPool* pool = new WorkerPool(configured_workers() - 1);  // never destroyed: helpers park forever
  return *pool;
}

// Launch limits of the emulated device (those of current GPUs).
inline musaError_t check_config(dim3 grid, dim3 block, size_t shmem) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      threads > 1024)
    return musaErrorInvalidConfiguration;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
    return musaErrorInvalidConfiguration;
  if (shmem > rt::kDynamicSharedCapacity) return musaErrorInvalidConfiguration;
  return musaSuccess;
}

inline void launch(dim3 grid, dim3 block, size_t shmem, musaStream_t, KernelBody body) {
  if (tls_worker != nullptr && tls_worker->runner.active())
    die("kernel launch from inside a kernel (dynamic parallelism) is not supported by the CPU emulator");
  if (const musaError_t error = check_config(grid, block, shmem); error != musaSuccess) {
    rt::record(error);  // like the GPU: the launch does nothing, musaGetLastError tells
    return;
  }
  const Grid g{grid, block, body, 1ull * grid.x * grid.y * grid.z};
  if (configured_workers() <= 1 || g.blocks == 1) {
    Worker& worker = this_worker();
    for (unsigned long long b = 0; b < g.blocks && run_block(worker, g, b); ++b) {
    }
  } else {
    worker_pool().run(g);
  }
  // A trap or device assert is the GPU's musaErrorAssert; an exception, the
  // "unspecified launch failure".  Reported like an asynchronous fault: by
  // musaGetLastError, or by the next synchronising call (musa_runtime_api.h).
  switch (g.fault.load()) {
    case Fault::None: break;
    case Fault::Assert: rt::raise_fault(musaErrorAssert); break;
    case Fault::LaunchFailure: rt::raise_fault(musaErrorLaunchFailure); break;
  }
}

// KernelBody::run for one launch lambda (block.h).  With a runner: the block's threads in turn, x
// fastest, each a plain call of the kernel inlined here, until one promotes the block; the kernel's
// reads of its indices then see the values just stored, where a call per thread through a pointer
// looked each up again.  Without: the kernel once, for the current fiber.  The kernel has one call
// site, so it is compiled in once.
template <class Callable>
bool run_threads(void* object, BlockRunner* plain) {
  Callable& kernel = *static_cast<Callable*>(object);
  const unsigned n = plain != nullptr ? plain->threads() : 1;
  const dim3 dim = plain != nullptr ? plain->block_dim() : dim3(1, 1, 1);
  uint3 index{0, 0, 0};
  for (unsigned t = 0; t < n; ++t) {
    if (plain != nullptr) threadIdx = index;  // all a plain thread needs (BlockRunner::self_lane)
    kernel();
    if (plain == nullptr) return false;
    if (plain->promoted()) return true;  // thread t turned the block into fibers and has finished
    // Counted, not divided: three divisions a thread cost as much as a small kernel's whole thread.
    if (++index.x == dim.x) {
      index.x = 0;
      if (++index.y == dim.y) {
        index.y = 0;
        ++index.z;
      }
    }
  }
  return false;
}

}  // namespace musaport::cpu

// The launch entry point used by rewritten `<<<...>>>` launches.
template <class Body>
inline void musaport_launch(dim3 grid, dim3 block, size_t shmem, musaStream_t stream, Body&& body) {
  using Callable = std::remove_reference_t<Body>;
  const musaport::cpu::KernelBody erased{&musaport::cpu::run_threads<Callable>,
                                         const_cast<void*>(static_cast<const void*>(std::addressof(body)))};
  musaport::cpu::launch(grid, block, shmem, stream, erased);
}

// Variant that evaluates the kernel arguments once, as a real launch does:
//     musaport_launch(g, b, s, st, kernel_or_lambda, args...);
// The arguments are copied once; each GPU thread receives its own copies.
template <class Kernel, class Arg0, class... Args>
inline void musaport_launch(dim3 grid, dim3 block, size_t shmem, musaStream_t stream, Kernel&& kernel, Arg0&& arg0,
                            Args&&... args) {
  std::tuple<std::decay_t<Arg0>, std::decay_t<Args>...> values(std::forward<Arg0>(arg0),
                                                                 std::forward<Args>(args)...);
  musaport_launch(grid, block, shmem, stream, [&]() { std::apply(kernel, values); });
}
