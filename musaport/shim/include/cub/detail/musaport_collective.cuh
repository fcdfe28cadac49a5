// musaport shim, not a cub header: what the shim's block- and warp-wide
// collectives (cub/block/*.cuh, cub/warp/*.cuh) share (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>
#include <cub/util_type.cuh>

#if MUSAPORT_CPU
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>
#endif

CUB_NS_PREFIX
namespace cub {

// ------------------------------------------------------------ block- and warp-wide collectives
// cub's interfaces. For the syntax check the bodies stop the kernel with
// __trap() (clang needs definitions when a template argument has internal
// linkage); on the CPU runtime they run: loads, stores and sorts, a sort
// done by one thread of the group between two barriers.
namespace musaport_detail {
__device__ inline void collective_unsupported() { __trap(); }

// The operator of cub's *Sum scans.
struct ScanSum {
  template <typename T>
  __device__ T operator()(const T& a, const T& b) const { return a + b; }
};

#if MUSAPORT_CPU
// ---- the CPU runtime runs these (a block's threads are fibers of one OS thread; __shared__ is shared)

// The thread's rank in its block (x fastest), and in its logical warp.
inline int block_rank() { return int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)); }
template <int WARP_THREADS>
inline int warp_rank() { return block_rank() % WARP_THREADS; }

// Loads and stores of a thread's items; `index(rank, i)` says where item i lives (blocked or striped).
// Past valid_items a load leaves an item as it is, or sets the default when one is given.
template <int N, typename T, typename It, typename Index>
inline void load_items(int rank, Index index, It it, T (&items)[N], int valid) {
  for (int i = 0; i < N; ++i)
    if (index(rank, i) < valid) items[i] = it[index(rank, i)];
}
template <int N, typename T, typename It, typename Index, typename D>
inline void load_items(int rank, Index index, It it, T (&items)[N], int valid, D oob) {
  for (int i = 0; i < N; ++i) items[i] = index(rank, i) < valid ? T(it[index(rank, i)]) : T(oob);
}
template <int N, typename T, typename It, typename Index>
inline void store_items(int rank, Index index, It it, T (&items)[N], int valid) {
  for (int i = 0; i < N; ++i)
    if (index(rank, i) < valid) it[index(rank, i)] = items[i];
}

// The group's items gathered in `storage` (keys, then values), reordered by one thread with a stable
// sort under `less`, and handed back blocked; `sync` is the group's barrier. Copies go through memcpy:
// the values need not be aligned after the keys.
template <int N, typename K, typename V, typename Less, typename Sync>
inline void sort_blocked(unsigned char* storage, int rank, int count, K (&keys)[N], V* values, Less less, Sync sync) {
  constexpr bool kHasValues = !std::is_same<V, NullType>::value;
  unsigned char* vals = storage + sizeof(K) * count * N;
  for (int i = 0; i < N; ++i) {
    std::memcpy(storage + sizeof(K) * (rank * N + i), &keys[i], sizeof(K));
    if constexpr (kHasValues) std::memcpy(vals + sizeof(V) * (rank * N + i), &values[i], sizeof(V));
  }
  sync();
  if (rank == 0) {
    const int total = count * N;
    std::unique_ptr<K[]> k(new K[total]);  // not std::vector: vector<bool> has no data()
    std::memcpy(static_cast<void*>(k.get()), storage, sizeof(K) * total);
    std::vector<int> order(total);
    for (int i = 0; i < total; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return less(k[a], k[b]); });
    for (int i = 0; i < total; ++i) std::memcpy(storage + sizeof(K) * i, &k[order[i]], sizeof(K));
    if constexpr (kHasValues) {
      std::unique_ptr<V[]> v(new V[total]);
      std::memcpy(static_cast<void*>(v.get()), vals, sizeof(V) * total);
      for (int i = 0; i < total; ++i) std::memcpy(vals + sizeof(V) * i, &v[order[i]], sizeof(V));
    }
  }
  sync();
  for (int i = 0; i < N; ++i) {
    std::memcpy(&keys[i], storage + sizeof(K) * (rank * N + i), sizeof(K));
    if constexpr (kHasValues) std::memcpy(&values[i], vals + sizeof(V) * (rank * N + i), sizeof(V));
  }
  sync();  // the storage may be reused by the caller's next collective
}

// A block-wide reduction under `op` of the values of threads 0..valid-1 (in rank order), through
// `storage` (count + 1 slots); every thread receives the result.
template <typename T, typename Op, typename Sync>
inline T reduce_block(unsigned char* storage, int rank, int count, T input, Op op, int valid, Sync sync) {
  std::memcpy(storage + sizeof(T) * rank, &input, sizeof(T));
  sync();
  if (rank == 0) {
    const int n = valid < count ? (valid > 0 ? valid : 1) : count;
    T total;
    std::memcpy(static_cast<void*>(&total), storage, sizeof(T));
    for (int r = 1; r < n; ++r) {
      T v;
      std::memcpy(static_cast<void*>(&v), storage + sizeof(T) * r, sizeof(T));
      total = op(total, v);
    }
    std::memcpy(storage + sizeof(T) * count, &total, sizeof(T));
  }
  sync();
  T result;
  std::memcpy(static_cast<void*>(&result), storage + sizeof(T) * count, sizeof(T));
  sync();  // the storage may be reused by the caller's next collective
  return result;
}

// Moves between the blocked arrangement (thread r holds elements r*N .. r*N+N-1) and the striped one
// (thread r holds r, r+count, ...), through `storage`; `sync` is the group's barrier.
template <int N, typename T, typename OutputT, typename Sync>
inline void exchange(unsigned char* storage, int rank, int count, const T (&in)[N], OutputT (&out)[N],
                     bool to_striped, Sync sync) {
  for (int i = 0; i < N; ++i) {
    const int at = to_striped ? rank * N + i : i * count + rank;
    std::memcpy(storage + sizeof(T) * at, &in[i], sizeof(T));
  }
  sync();
  for (int i = 0; i < N; ++i) {
    const int at = to_striped ? i * count + rank : rank * N + i;
    T item;
    std::memcpy(static_cast<void*>(&item), storage + sizeof(T) * at, sizeof(T));
    out[i] = OutputT(item);
  }
  sync();  // the storage may be reused by the caller's next collective
}

// A block-wide scan of N blocked items per thread under `op`, cub's way: each thread reduces its own
// items, thread 0 scans the `count` partials in `storage` (slots 0..count-1, the aggregate in slot
// count, the prefix in slot count+1: TempStorage holds count+32 Ts), and each thread then scans its
// items from its exclusive prefix.  `seed` is the exclusive scan's initial value (the prefix of thread
// 0), or null; `callback`, when given, is called by every thread of the first warp with the block's
// aggregate and the value lane 0 returns seeds the scan (cub's BlockPrefixCallbackOp).  `aggregate`
// receives the reduction of all inputs, without the seed.  Input and output may be the same array.
template <int N, typename T, typename Op, typename Callback, typename Sync>
inline void scan_blocked(unsigned char* storage, int rank, int count, const T (&in)[N], T (&out)[N], Op op,
                         bool inclusive, const T* seed, Callback* callback, T* aggregate, Sync sync) {
  T items[N];
  for (int i = 0; i < N; ++i) items[i] = in[i];
  auto slot = [&](int s) -> unsigned char* { return storage + sizeof(T) * s; };
  auto load = [&](int s) {
    T v;
    std::memcpy(static_cast<void*>(&v), slot(s), sizeof(T));
    return v;
  };
  T partial = items[0];
  for (int i = 1; i < N; ++i) partial = op(partial, items[i]);
  std::memcpy(slot(rank), &partial, sizeof(T));
  sync();
  if (rank == 0) {  // slot r becomes the inclusive scan of the partials 0..r
    T running = load(0);
    for (int r = 1; r < count; ++r) {
      running = op(running, load(r));
      std::memcpy(slot(r), &running, sizeof(T));
    }
    std::memcpy(slot(count), &running, sizeof(T));
  }
  sync();
  const T total = load(count);
  bool has_seed = seed != nullptr;
  T start = has_seed ? *seed : total;
  if constexpr (!std::is_same<Callback, NullType>::value) {
    if (callback != nullptr) {
      if (rank < 32) {
        const T prefix = (*callback)(total);
        if (rank == 0) std::memcpy(slot(count + 1), &prefix, sizeof(T));
      }
      sync();
      start = load(count + 1);
      has_seed = true;
    }
  }
  // This thread's exclusive prefix: the seed combined with the partials of the threads before it.
  bool has_prefix = has_seed || rank > 0;
  T prefix = start;
  if (rank > 0) prefix = has_seed ? op(start, load(rank - 1)) : load(rank - 1);
  if (inclusive) {
    T running = has_prefix ? op(prefix, items[0]) : items[0];
    out[0] = running;
    for (int i = 1; i < N; ++i) out[i] = running = op(running, items[i]);
  } else {
    T running = prefix;  // an exclusive scan without a seed leaves thread 0's first output undefined (cub)
    out[0] = running;
    for (int i = 1; i < N; ++i) out[i] = running = op(running, items[i - 1]);
  }
  (void)has_prefix;
  if (aggregate != nullptr) *aggregate = total;
  sync();  // the storage may be reused by the caller's next collective
}

#endif
}  // namespace musaport_detail

}  // namespace cub
CUB_NS_POSTFIX
