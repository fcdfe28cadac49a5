// musaport shim: stream-ordered allocation and memory pools (musaMallocAsync, musaMemPool*).
//
// PyTorch's asynchronous allocator backend uses them.  The shim's one device is
// host memory and every stream runs in order on the host, so an asynchronous
// allocation is an immediate one and a pool only keeps its attributes (the
// reserved/used figures stay 0: the pool never holds memory of its own).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

enum musaMemPoolAttr {
  musaMemPoolReuseFollowEventDependencies = 1,
  musaMemPoolReuseAllowOpportunistic = 2,
  musaMemPoolReuseAllowInternalDependencies = 3,
  musaMemPoolAttrReleaseThreshold = 4,
  musaMemPoolAttrReservedMemCurrent = 5,
  musaMemPoolAttrReservedMemHigh = 6,
  musaMemPoolAttrUsedMemCurrent = 7,
  musaMemPoolAttrUsedMemHigh = 8
};
enum musaMemLocationType { musaMemLocationTypeInvalid = 0, musaMemLocationTypeDevice = 1 };
enum musaMemAccessFlags {
  musaMemAccessFlagsProtNone = 0,
  musaMemAccessFlagsProtRead = 1,
  musaMemAccessFlagsProtReadWrite = 3
};
struct musaMemLocation {
  enum musaMemLocationType type;
  int id;
};
struct musaMemAccessDesc {
  struct musaMemLocation location;
  enum musaMemAccessFlags flags;
};

namespace musaport {
namespace rt {
struct MemPool {
  std::mutex lock;
  std::map<int, uint64_t> attributes;  // attribute -> value (booleans are stored as 0/1)
};
inline MemPool* default_pool(int device) {
  static std::mutex lock;
  static std::map<int, MemPool> pools;
  std::lock_guard<std::mutex> hold(lock);
  return &pools[device];
}
inline bool boolean_attribute(int attr) { return attr >= 1 && attr <= 3; }
}  // namespace rt
}  // namespace musaport

typedef struct musaport::rt::MemPool* musaMemPool_t;

inline musaError_t musaDeviceGetDefaultMemPool(musaMemPool_t* pool, int device) {
  int count = 0;
  musaGetDeviceCount(&count);
  if (pool == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  if (device < 0 || device >= count) return musaport::rt::record(musaErrorInvalidDevice);
  *pool = musaport::rt::default_pool(device);
  return musaSuccess;
}
inline musaError_t musaMemPoolSetAttribute(musaMemPool_t pool, musaMemPoolAttr attr, void* value) {
  if (pool == nullptr || value == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  std::lock_guard<std::mutex> hold(pool->lock);
  pool->attributes[attr] = musaport::rt::boolean_attribute(attr) ? uint64_t(*static_cast<int*>(value) != 0)
                                                                 : *static_cast<uint64_t*>(value);
  return musaSuccess;
}
inline musaError_t musaMemPoolGetAttribute(musaMemPool_t pool, musaMemPoolAttr attr, void* value) {
  if (pool == nullptr || value == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  std::lock_guard<std::mutex> hold(pool->lock);
  const uint64_t v = pool->attributes.count(attr) ? pool->attributes[attr] : 0;
  if (musaport::rt::boolean_attribute(attr)) {
    *static_cast<int*>(value) = int(v);
  } else {
    *static_cast<uint64_t*>(value) = v;
  }
  return musaSuccess;
}
inline musaError_t musaMemPoolTrimTo(musaMemPool_t pool, size_t) {
  return pool == nullptr ? musaport::rt::record(musaErrorInvalidValue) : musaSuccess;
}
inline musaError_t musaMemPoolSetAccess(musaMemPool_t pool, const musaMemAccessDesc* descs, size_t count) {
  return pool == nullptr || (count && descs == nullptr) ? musaport::rt::record(musaErrorInvalidValue) : musaSuccess;
}
inline musaError_t musaMallocAsync(void** ptr, size_t bytes, musaStream_t) { return musaMalloc(ptr, bytes); }
inline musaError_t musaFreeAsync(void* ptr, musaStream_t) { return musaFree(ptr); }
inline musaError_t musaMemcpyPeerAsync(void* dst, int, const void* src, int, size_t bytes, musaStream_t stream = nullptr) {
  return musaMemcpyAsync(dst, src, bytes, musaMemcpyDefault, stream);
}
