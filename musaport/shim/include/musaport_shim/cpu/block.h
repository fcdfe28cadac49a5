// musaport CPU runtime: running one thread block.
//
// Each OS thread that executes blocks owns one BlockRunner.  A block starts in
// "plain" mode: GPU threads run one after another as ordinary calls on the OS
// thread's own stack, which is all a barrier-free kernel ever needs.  The
// first synchronising call (__syncthreads, a warp operation with another
// lane) "promotes" the block to fiber mode without re-running anything:
//   * the calling GPU thread keeps the OS stack ("native lane") and is
//     suspended there like any fiber;
//   * threads that already finished stay finished;
//   * threads not yet started get their own fiber (see fiber.h), on an
//     mmap'd stack with a guard page, when first scheduled.
// Fibers switch only at synchronisation points (cooperative scheduling), in a
// FIFO order, so runs are deterministic.  When every live thread is blocked
// and nothing is runnable, the block can never finish: that is reported with
// the source location of the barrier or warp operation, and the run aborts.
#pragma once

#include <csetjmp>
#include <cstdarg>
#include <exception>
#include <vector>

#include "../builtin_vars.h"
#include "fiber.h"

namespace musaport::cpu {

// Whether a thread that has exited counts as arrived at a __syncthreads() the others wait at. CUDA's
// guide leaves a barrier that not every thread reaches undefined; the hardware releases it, and
// PyTorch's kernels rely on that (UpSampleBilinear2d.cu's anti-aliased interpolation returns early,
// then syncs). The device build (validate --opinfo) defines MUSAPORT_EXITED_THREADS_ARRIVE=1 to run
// them as the hardware does; by default the runtime stops at such a barrier and says where it is.
#ifdef MUSAPORT_EXITED_THREADS_ARRIVE
inline constexpr bool kExitedThreadsArrive = MUSAPORT_EXITED_THREADS_ARRIVE != 0;
#else
inline constexpr bool kExitedThreadsArrive = false;
#endif

class BlockRunner;

// The launch lambda, type-erased (launch.h's run_threads).  run(object,
// &runner) runs the block's threads in turn as plain calls, the kernel
// inlined into its loop: a call through a pointer, a frame and a
// thread-local lookup per GPU thread cost more than a small kernel's thread
// itself, and a one-block launch of a few elements (a small operator) is 128
// threads.  It stops after the thread that promoted the block to fibers, and
// says whether one did.  run(object, nullptr) runs the kernel once, for the
// current GPU thread (a fiber's).  One function for both, so that the kernel
// is compiled into the library once per launch, not twice.
struct KernelBody {
  bool (*run)(void*, BlockRunner*);
  void* object;
};

// A GPU thread's fault: it stops the grid, and the launch reports it as a
// runtime error (musaErrorAssert, musaErrorLaunchFailure) instead of aborting.
enum class Fault : unsigned char { None, Assert, LaunchFailure };

inline const char* fault_error_name(Fault fault) {
  return fault == Fault::Assert ? "musaErrorAssert" : "musaErrorLaunchFailure";
}

enum class LaneState : unsigned char { NotStarted, Ready, Running, AtBarrier, AtWarp, Exited };

enum class BarrierKind : unsigned char { Sync, Count, And, Or };

enum class WarpOp : unsigned char {
  Sync, ShflIdx, ShflUp, ShflDown, ShflXor, Ballot, All, Any, MatchAny,
  ReduceAddU, ReduceAddI, ReduceMinU, ReduceMinI, ReduceMaxU, ReduceMaxI
};

inline const char* warp_op_name(WarpOp op) {
  switch (op) {
    case WarpOp::Sync: return "__syncwarp()";
    case WarpOp::ShflIdx: return "__shfl_sync()";
    case WarpOp::ShflUp: return "__shfl_up_sync()";
    case WarpOp::ShflDown: return "__shfl_down_sync()";
    case WarpOp::ShflXor: return "__shfl_xor_sync()";
    case WarpOp::Ballot: return "__ballot_sync()";
    case WarpOp::All: return "__all_sync()";
    case WarpOp::Any: return "__any_sync()";
    case WarpOp::MatchAny: return "__match_any_sync()";
    case WarpOp::ReduceAddU: case WarpOp::ReduceAddI: return "__reduce_add_sync()";
    case WarpOp::ReduceMinU: case WarpOp::ReduceMinI: return "__reduce_min_sync()";
    case WarpOp::ReduceMaxU: case WarpOp::ReduceMaxI: return "__reduce_max_sync()";
  }
  return "warp operation";
}

// One lane's part in a warp-wide operation: its input value and, once the
// whole group has arrived, its result.
struct WarpCall {
  WarpOp op = WarpOp::Sync;
  unsigned group = 0;  // participating lanes (mask & existing lanes | self)
  int arg = 0;         // source lane, delta or xor mask
  int width = 32;
  unsigned size = 0;   // bytes of the value
  alignas(16) unsigned char in[16] = {};
  alignas(16) unsigned char out[16] = {};
};

// One GPU thread of the block being run.
struct Lane {
  uint3 index{0, 0, 0};
  unsigned id = 0;  // linear index in the block
  LaneState state = LaneState::NotStarted;
  bool has_context = false;  // `context` can be resumed (a fiber, or the suspended native lane)
  const char* file = "";  // where it waits
  int line = 0;
  int barrier_result = 0;
  WarpCall warp;
  FiberContext context;
};

class BlockRunner {
 public:
  bool active() const { return active_; }
  const uint3& block_index() const { return block_; }
  // The running GPU thread.  In plain mode its lane is written here, when something asks for it (a
  // barrier, a warp operation, a fault), not by the loop over the block's threads (self_lane).
  const Lane& current() { return self_lane(); }

  // Run every thread of one block to completion, or until one of them
  // faults (the block's other threads are then abandoned: see fault()).
  Fault run_block(const KernelBody& body, dim3 block_dim, uint3 block_index) {
    begin(body, block_dim, block_index);
    if (setjmp(escape_) == 0) {
      bool promoted = false;
      guarded([&] { promoted = body_.run(body_.object, this); });
      if (promoted) finish_native_lane();  // the current lane turned this block into fibers and has just finished
    }
    end();
    return fault_;
  }

  // ---- plain mode, for KernelBody::run's loop over the block's threads (launch.h), which sets
  // threadIdx and nothing else per thread: a plain thread's lane is written only if it synchronises
  // or faults (self_lane), and the lanes of the threads that ran before are marked exited only if
  // the block is promoted (promote).  Writing a lane per thread cost as much as a small kernel's body.
  unsigned threads() const { return n_; }
  dim3 block_dim() const { return dim_; }
  bool promoted() const { return promoted_; }

  // The running GPU thread trapped, failed a device assert or let an
  // exception escape.  Print the diagnostic line and leave the block for
  // good: on the GPU the fault ends the whole grid, so no thread of the block
  // may run on.  The thread on the OS stack (the "native lane": the only one
  // in plain mode, the one that promoted the block otherwise) jumps straight
  // back to run_block; a fiber first switches to the suspended native lane,
  // which jumps back when it sees fault_.  Fibers parked at barriers or warp
  // operations are never resumed; their stacks are mmap'd per lane and are
  // re-prepared by the next block, so abandoning them frees nothing twice and
  // leaks only what a kernel allocated on the heap.  Never a barrier release:
  // with MUSAPORT_EXITED_THREADS_ARRIVE, too, the faulting thread does not
  // count as exited.
  [[noreturn, gnu::format(printf, 3, 4)]] void fault(Fault kind, const char* format, ...) {
    char tail[64];
    std::snprintf(tail, sizeof(tail), "; the grid stops (%s)", fault_error_name(kind));
    va_list args;
    va_start(args, format);
    print_error_line(tail, format, args);
    va_end(args);
    fault_ = kind;
    if (!promoted_ || self_lane().id == native_) std::longjmp(escape_, 1);  // already on the OS stack
    Lane& native = lanes_[native_];
    current_ = &native;
    fiber_switch(nullptr, native.state == LaneState::Exited ? exit_context_ : native.context);
    __builtin_unreachable();
  }

  // __syncthreads() and its counting variants.
  int barrier(BarrierKind kind, int vote, const char* file, int line) {
    Lane& self = self_lane();
    if (n_ == 1) return reduce_votes(kind, vote != 0 ? 1u : 0u);
    if (!promoted_) promote();
    self.state = LaneState::AtBarrier;
    self.file = file;
    self.line = line;
    if (vote != 0) ++votes_;
    pending_kind_ = kind;
    if (++arrived_ + (kExitedThreadsArrive ? exited_ : 0) == n_) {
      release_barrier(kind);
      return self.barrier_result;
    }
    switch_to_next(&self.context);
    return self.barrier_result;
  }

  // Every warp-level operation: shuffles, votes, __syncwarp, match, reduce.  The running lane's
  // part (its `size`-byte input at `in`) goes straight into its slot, and the result is read from
  // there (the returned slot's `out`): a WarpCall built on the caller's stack and copied in and out
  // cost more than the rendezvous itself (partial stores read back whole stall store forwarding).
  const WarpCall& warp(WarpOp op, const void* in, unsigned size, int arg, int width, unsigned mask, const char* file,
                       int line) {
    Lane& self = self_lane();
    WarpCall& call = self.warp;
    call.op = op;
    call.arg = arg;
    call.width = width;
    call.size = size;
    std::memset(call.in, 0, sizeof(call.in));  // votes read four bytes of a narrower input
    std::memcpy(call.in, in, size);
    const unsigned lane = self.id % 32, base = self.id - lane;
    call.group = (mask & existing_lanes(base)) | (1u << lane);
    check_width(call, file, line);
    self.file = file;
    self.line = line;
    if (call.group == (1u << lane)) {  // alone: nothing to wait for
      complete_warp(base, call.group);
      return call;
    }
    if (!promoted_) promote();
    if (exited_ != 0) check_group_alive(self, base);  // a 32-lane scan only once a thread has exited
    self.state = LaneState::AtWarp;
    warp_arrived_[base / 32] |= 1u << lane;
    if ((call.group & ~warp_arrived_[base / 32]) == 0) {
      release_warp(self, base);
    } else {
      switch_to_next(&self.context);
    }
    return call;
  }

  // Lanes of the caller's warp that exist and have not exited.
  unsigned active_mask() {
    const Lane& self = self_lane();
    const unsigned base = self.id - self.id % 32;
    unsigned mask = 0;
    for (unsigned i = 0; i < 32 && base + i < n_; ++i)
      if (promoted_ ? lanes_[base + i].state != LaneState::Exited : base + i >= self.id) mask |= 1u << i;
    return mask;  // plain mode: the lanes before the caller have exited, those after it not yet started
  }

  // Let the other threads of the block run (used by __nanosleep so that
  // spin-waits on a flag set by another thread of the block make progress).
  void yield() {
    if (n_ == 1) return;
    Lane& self = self_lane();
    if (!promoted_) promote();
    if (queued_ == 0) return;
    self.state = LaneState::Ready;
    push(self.id);
    switch_to_next(&self.context);
  }

  // Whether `addr` lies in the guard page of one of this runner's fiber
  // stacks (and whose).  Called from the SIGSEGV handler: no allocation.
  bool guard_hit(const void* addr, uint3* thread) const {
    for (size_t i = 0; i < stacks_.size(); ++i) {
      if (!stacks_[i].guard_contains(addr)) continue;
      *thread = i < lanes_.size() ? lanes_[i].index : uint3{0, 0, 0};
      return true;
    }
    return false;
  }

  // Entry point of every fiber (makecontext cannot pass a pointer portably,
  // so the runner is found through the per-OS-thread pointer).
  static void fiber_main();

 private:
  // Nothing per thread here: a block that never synchronises touches only the lanes it runs.
  void begin(const KernelBody& body, dim3 block_dim, uint3 block_index) {
    body_ = body;
    block_ = block_index;
    dim_ = block_dim;
    n_ = block_dim.x * block_dim.y * block_dim.z;
    if (lanes_.size() < n_) lanes_.resize(n_);
    if (stacks_.size() < n_) stacks_.resize(n_);
    if (ring_.size() < n_) ring_.resize(n_);
    promoted_ = false;
    fault_ = Fault::None;
    exited_ = arrived_ = votes_ = 0;
    head_ = queued_ = 0;
    active_ = true;
  }

  void end() {
    active_ = false;
    current_ = nullptr;
  }

  // The running GPU thread's lane.  Promoted: the fiber or native lane running.  Plain: the lane of
  // the thread whose index the loop has just set, written now (its linear index from threadIdx).
  Lane& self_lane() {
    if (promoted_) return *current_;
    const uint3 index = threadIdx;
    const unsigned id = index.x + dim_.x * (index.y + dim_.y * index.z);
    Lane& lane = lanes_[id];
    lane.id = id;
    lane.index = index;
    lane.state = LaneState::Running;
    lane.has_context = false;
    current_ = &lane;
    return lane;
  }

  // Make `lane` the running GPU thread of this OS thread.
  void enter(Lane& lane) {
    current_ = &lane;
    lane.state = LaneState::Running;
    threadIdx = lane.index;
  }

  void invoke_kernel() {
    guarded([this] { body_.run(body_.object, nullptr); });
  }

  // An exception escaping the kernel is a launch failure.  The handler only
  // copies its message: the fault leaves the thread after the exception is
  // destroyed, so the C++ runtime's per-thread exception state stays clean.
  template <class F>
  void guarded(F&& run) {
    char what[512];
    what[0] = '\0';
    bool threw = false;
    try {
      run();
    } catch (const std::exception& e) {
      threw = true;
      std::snprintf(what, sizeof(what), ": %s", e.what());
    } catch (...) {
      threw = true;
    }
    if (!threw) return;
    if (char* newline = std::strchr(what, '\n')) *newline = '\0';  // c10::Error appends a backtrace
    fault(Fault::LaunchFailure, "kernel threw an exception in block (%u,%u,%u) thread (%u,%u,%u)%s", block_.x,
          block_.y, block_.z, self_lane().index.x, self_lane().index.y, self_lane().index.z, what);
  }

  // Switch the block to fibers: every thread after the current one becomes a
  // fiber; the current thread continues on the native stack.  The threads
  // before it have run to their ends (their lanes are marked exited here; plain
  // threads never wrote them); the lanes of those after it are filled in here.
  void promote() {
    Lane& self = self_lane();
    promoted_ = true;
    native_ = self.id;
    self.has_context = true;  // saved by its first switch, before anyone resumes it
    warp_arrived_.assign((n_ + 31) / 32, 0);
    for (unsigned i = 0; i < native_; ++i) lanes_[i].state = LaneState::Exited;  // they ran to their ends
    exited_ = native_;
    // Counted, not divided: three divisions a lane cost as much as a small kernel's whole thread.
    uint3 index = current_->index;
    for (unsigned i = current_->id + 1; i < n_; ++i) {
      if (++index.x == dim_.x) {
        index.x = 0;
        if (++index.y == dim_.y) {
          index.y = 0;
          ++index.z;
        }
      }
      Lane& lane = lanes_[i];
      lane.id = i;
      lane.index = index;
      lane.has_context = false;
      lane.state = LaneState::Ready;
      push(i);
    }
  }

  // ---- run queue (each lane is queued at most once, so n slots suffice)
  void push(unsigned id) {
    ring_[(head_ + queued_) % n_] = id;
    ++queued_;
  }
  unsigned pop() {
    const unsigned id = ring_[head_];
    head_ = (head_ + 1) % n_;
    --queued_;
    return id;
  }

  // Suspend the running lane (saving into `save`, or abandoning it when null)
  // and resume the next ready one.
  void switch_to_next(FiberContext* save) {
    if (queued_ == 0) report_deadlock();
    Lane& next = lanes_[pop()];
    enter(next);
    if (!next.has_context) start_fiber(next);
    fiber_switch(save, next.context);
    // Resumed.  After a fault only the native lane ever is: back to run_block.
    if (fault_ != Fault::None) std::longjmp(escape_, 1);
  }

  void start_fiber(Lane& lane) {
    FiberStack& stack = stacks_[lane.id];
    stack.ensure(fiber_stack_mapping());
    fiber_prepare(lane.context, stack, &BlockRunner::fiber_main, fiber_stack_skew(lane.id));
    lane.has_context = true;
  }

  // A fiber's kernel call returned.
  [[noreturn]] void finish_fiber_lane() {
    current_->state = LaneState::Exited;
    if (++exited_ == n_) {
      current_ = nullptr;
      fiber_switch(nullptr, exit_context_);  // back to run_block on the native stack
    }
    release_if_only_exits_missing();
    switch_to_next(nullptr);
    __builtin_unreachable();
  }

  // The native lane's kernel call returned (promoted block): wait on the
  // native stack until the fibers are done.
  void finish_native_lane() {
    current_->state = LaneState::Exited;
    if (++exited_ == n_) return;
    release_if_only_exits_missing();
    switch_to_next(&exit_context_);
  }

  // ---- barrier
  static int reduce_votes(BarrierKind kind, unsigned nonzero, unsigned total = 1) {
    switch (kind) {
      case BarrierKind::Sync: return 0;
      case BarrierKind::Count: return static_cast<int>(nonzero);
      case BarrierKind::And: return nonzero == total;
      case BarrierKind::Or: return nonzero != 0;
    }
    return 0;
  }

  // The last thread arrived: hand every waiter its result and make it ready.
  // With exited threads counted as arrived: a thread's exit may be what a waiting barrier lacked.
  void release_if_only_exits_missing() {
    if (kExitedThreadsArrive && arrived_ > 0 && arrived_ + exited_ == n_) release_barrier(pending_kind_);
  }

  void release_barrier(BarrierKind kind) {
    const int result = reduce_votes(kind, votes_, arrived_);
    for (unsigned i = 0; i < n_; ++i) {
      Lane& lane = lanes_[i];
      if (lane.state != LaneState::AtBarrier) continue;
      lane.barrier_result = result;
      if (&lane == current_) {
        lane.state = LaneState::Running;
      } else {
        lane.state = LaneState::Ready;
        push(i);
      }
    }
    arrived_ = votes_ = 0;
  }

  // ---- warp operations
  unsigned existing_lanes(unsigned base) const {
    const unsigned count = n_ - base;
    return count >= 32 ? 0xffffffffu : (1u << count) - 1u;
  }

  static void check_width(const WarpCall& call, const char* file, int line) {
    const int w = call.width;
    if (w < 1 || w > 32 || (w & (w - 1)) != 0)
      die("%s at %s:%d: width %d is not a power of two between 1 and 32", warp_op_name(call.op), file, line, w);
  }

  // Lanes named in the mask that already exited can never join.
  void check_group_alive(const Lane& self, unsigned base) const {
    unsigned gone = 0;
    for (unsigned i = 0; i < 32; ++i)
      if ((self.warp.group >> i & 1u) && lanes_[base + i].state == LaneState::Exited) gone |= 1u << i;
    if (gone != 0)
      die("%s at %s:%d in block (%u,%u,%u), warp %u: mask 0x%08x names lanes 0x%08x that already exited",
          warp_op_name(self.warp.op), self.file, self.line, block_.x, block_.y, block_.z, base / 32, self.warp.group,
          gone);
  }

  // The whole group is here: check it agrees, compute all results, wake it.
  void release_warp(Lane& self, unsigned base) {
    const unsigned group = self.warp.group;
    for (unsigned i = 0; i < 32; ++i) {
      if (!(group >> i & 1u)) continue;
      const Lane& other = lanes_[base + i];
      if (other.warp.op != self.warp.op || other.warp.group != group)
        die("warp %u of block (%u,%u,%u): lane %u is in %s at %s:%d with mask 0x%08x but lane %u is in %s at %s:%d "
            "with mask 0x%08x",
            base / 32, block_.x, block_.y, block_.z, self.id % 32, warp_op_name(self.warp.op), self.file, self.line,
            group, i, warp_op_name(other.warp.op), other.file, other.line, other.warp.group);
    }
    complete_warp(base, group);
    warp_arrived_[base / 32] &= ~group;
    for (unsigned i = 0; i < 32; ++i) {
      if (!(group >> i & 1u)) continue;
      Lane& lane = lanes_[base + i];
      if (&lane == &self) {
        lane.state = LaneState::Running;
      } else {
        lane.state = LaneState::Ready;
        push(base + i);
      }
    }
  }

  static int source_lane(const WarpCall& c, int lane) {
    const int seg = lane & ~(c.width - 1);  // first lane of this width-segment
    switch (c.op) {
      case WarpOp::ShflIdx: return seg + (c.arg & (c.width - 1));
      case WarpOp::ShflUp: return lane - seg >= c.arg ? lane - c.arg : lane;
      case WarpOp::ShflDown: return lane + c.arg < seg + c.width ? lane + c.arg : lane;
      case WarpOp::ShflXor: {
        const int src = lane ^ c.arg;
        return src >= 0 && src < seg + c.width ? src : lane;
      }
      default: return lane;
    }
  }

  template <class T>
  T input_of(unsigned lane_id) const {
    T v;
    std::memcpy(&v, lanes_[lane_id].warp.in, sizeof(T));
    return v;
  }

  // Compute every group member's result from the inputs (all are blocked or
  // running this code, so the inputs are stable).
  void complete_warp(unsigned base, unsigned group) {
    const WarpCall& first = lanes_[base + __builtin_ctz(group)].warp;
    // Group-wide summaries, for votes and reductions only.
    unsigned ballot = 0;
    unsigned long long sum_u = 0;
    long long sum_i = 0;
    unsigned min_u = ~0u, max_u = 0;
    int min_i = 0x7fffffff, max_i = -0x7fffffff - 1;
    const bool summarise = first.op >= WarpOp::Ballot && first.op != WarpOp::MatchAny;
    for (unsigned i = 0; summarise && i < 32; ++i) {
      if (!(group >> i & 1u)) continue;
      const int vi = input_of<int>(base + i);
      const unsigned vu = input_of<unsigned>(base + i);
      if (vi != 0) ballot |= 1u << i;
      sum_u += vu;
      sum_i += vi;
      min_u = vu < min_u ? vu : min_u;
      max_u = vu > max_u ? vu : max_u;
      min_i = vi < min_i ? vi : min_i;
      max_i = vi > max_i ? vi : max_i;
    }
    for (unsigned i = 0; i < 32; ++i) {
      if (!(group >> i & 1u)) continue;
      WarpCall& c = lanes_[base + i].warp;
      switch (first.op) {
        case WarpOp::Sync: break;
        case WarpOp::ShflIdx: case WarpOp::ShflUp: case WarpOp::ShflDown: case WarpOp::ShflXor: {
          int src = source_lane(c, static_cast<int>(i));
          if (src < 0 || src >= 32 || !(group >> src & 1u)) src = static_cast<int>(i);  // inactive source: own value
          std::memcpy(c.out, lanes_[base + src].warp.in, c.size);
          break;
        }
        case WarpOp::Ballot: store(c, ballot); break;
        case WarpOp::All: store(c, static_cast<int>(ballot == group)); break;
        case WarpOp::Any: store(c, static_cast<int>(ballot != 0)); break;
        case WarpOp::MatchAny: {
          unsigned same = 0;
          for (unsigned j = 0; j < 32; ++j)
            if ((group >> j & 1u) && std::memcmp(lanes_[base + j].warp.in, c.in, c.size) == 0) same |= 1u << j;
          store(c, same);
          break;
        }
        case WarpOp::ReduceAddU: store(c, static_cast<unsigned>(sum_u)); break;
        case WarpOp::ReduceAddI: store(c, static_cast<int>(static_cast<unsigned>(sum_i))); break;
        case WarpOp::ReduceMinU: store(c, min_u); break;
        case WarpOp::ReduceMinI: store(c, min_i); break;
        case WarpOp::ReduceMaxU: store(c, max_u); break;
        case WarpOp::ReduceMaxI: store(c, max_i); break;
      }
    }
  }

  template <class T>
  static void store(WarpCall& c, T v) {
    std::memcpy(c.out, &v, sizeof(T));
  }

  // ---- diagnosis: nothing is runnable, yet threads are still waiting.
  [[noreturn]] void report_deadlock() const {
    const Lane* at_barrier = nullptr;
    const Lane* at_warp = nullptr;
    unsigned barrier_count = 0, warp_count = 0;
    for (unsigned i = 0; i < n_; ++i) {
      const Lane& lane = lanes_[i];
      if (lane.state == LaneState::AtBarrier && barrier_count++ == 0) at_barrier = &lane;
      if (lane.state == LaneState::AtWarp && warp_count++ == 0) at_warp = &lane;
    }
    if (at_barrier != nullptr && exited_ > 0)
      die("partial barrier: __syncthreads() at %s:%d in block (%u,%u,%u) is reached by %u of %u threads; %u threads "
          "exited without reaching it",
          at_barrier->file, at_barrier->line, block_.x, block_.y, block_.z, barrier_count, n_, exited_);
    if (at_barrier != nullptr)
      die("deadlock: __syncthreads() at %s:%d in block (%u,%u,%u) is reached by %u of %u threads; %u wait in %s at %s:%d",
          at_barrier->file, at_barrier->line, block_.x, block_.y, block_.z, barrier_count, n_, warp_count,
          at_warp ? warp_op_name(at_warp->warp.op) : "?", at_warp ? at_warp->file : "?", at_warp ? at_warp->line : 0);
    if (at_warp != nullptr) {
      const unsigned base = at_warp->id - at_warp->id % 32;
      die("deadlock: %s at %s:%d in block (%u,%u,%u), warp %u waits for lanes 0x%08x (mask 0x%08x) that never "
          "arrive; %u threads of the block exited",
          warp_op_name(at_warp->warp.op), at_warp->file, at_warp->line, block_.x, block_.y, block_.z, base / 32,
          at_warp->warp.group & ~warp_arrived_[base / 32], at_warp->warp.group, exited_);
    }
    die("internal scheduler error in block (%u,%u,%u): no runnable thread", block_.x, block_.y, block_.z);
  }

  std::vector<Lane> lanes_;
  std::vector<FiberStack> stacks_;  // stacks_[i] belongs to lane i, reused across blocks
  std::vector<unsigned> ring_;
  std::vector<unsigned> warp_arrived_;  // per warp: lanes waiting in a warp operation
  KernelBody body_{nullptr, nullptr};
  uint3 block_{0, 0, 0};
  dim3 dim_{1, 1, 1};
  unsigned n_ = 0;
  bool promoted_ = false;
  bool active_ = false;
  Fault fault_ = Fault::None;
  unsigned native_ = 0;   // the lane on the OS stack of a promoted block
  std::jmp_buf escape_;   // run_block's frame, where a fault returns to
  unsigned exited_ = 0;
  unsigned arrived_ = 0;  // threads waiting at the barrier
  BarrierKind pending_kind_ = BarrierKind::Sync;  // the kind of the barrier they wait at
  unsigned votes_ = 0;    // non-zero predicates among them
  unsigned head_ = 0;
  unsigned queued_ = 0;
  Lane* current_ = nullptr;
  FiberContext exit_context_;

};

}  // namespace musaport::cpu
