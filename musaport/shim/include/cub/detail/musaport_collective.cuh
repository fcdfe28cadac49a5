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

#endif
}  // namespace musaport_detail

}  // namespace cub
CUB_NS_POSTFIX
