// musaport shim: the MUSA runtime C API, implemented on the host.
//
// There is one "device": host memory.  musaMalloc is an aligned host
// allocation, copies are memcpy, streams and events are synchronous (work is
// finished when the call that enqueues it returns), and every call reports
// errors the usual way (return value + per-thread last error).
// The same definitions are used in the clang syntax check, where they are
// ordinary host functions.
#pragma once

#include "musaport_shim/config.h"
#include "musaport_shim/vector_types.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

// Shim values, not those of a particular MUSA release: high enough that
// version checks written for modern toolkits take their modern branch.
#define MUSART_VERSION 12000
#ifndef MUSA_COMP_VERSION
#define MUSA_COMP_VERSION 12000
#endif

// ---------------------------------------------------------------- error codes
enum musaError {
  musaSuccess = 0,
  musaErrorInvalidValue = 1,
  musaErrorMemoryAllocation = 2,
  musaErrorInitializationError = 3,
  musaErrorInsufficientDriver = 35,
  musaErrorMusartUnloading = 4,
  musaErrorInvalidConfiguration = 9,
  musaErrorInvalidPitchValue = 12,
  musaErrorInvalidSymbol = 13,
  musaErrorInvalidDevicePointer = 17,
  musaErrorInvalidMemcpyDirection = 21,
  musaErrorNoDevice = 100,
  musaErrorInvalidDevice = 101,
  musaErrorInvalidResourceHandle = 400,
  musaErrorNotReady = 600,
  musaErrorIllegalAddress = 700,
  musaErrorLaunchOutOfResources = 701,
  musaErrorPeerAccessAlreadyEnabled = 704,
  musaErrorAssert = 710,
  musaErrorLaunchFailure = 719,
  musaErrorNotSupported = 801,
  musaErrorUnknown = 999
};
typedef enum musaError musaError_t;

enum musaMemcpyKind {
  musaMemcpyHostToHost = 0,
  musaMemcpyHostToDevice = 1,
  musaMemcpyDeviceToHost = 2,
  musaMemcpyDeviceToDevice = 3,
  musaMemcpyDefault = 4
};

enum musaMemoryType {
  musaMemoryTypeUnregistered = 0,
  musaMemoryTypeHost = 1,
  musaMemoryTypeDevice = 2,
  musaMemoryTypeManaged = 3
};

struct musaPointerAttributes {
  enum musaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

enum musaLimit {
  musaLimitStackSize = 0,
  musaLimitPrintfFifoSize = 1,
  musaLimitMallocHeapSize = 2
};

enum musaFuncCache {
  musaFuncCachePreferNone = 0,
  musaFuncCachePreferShared = 1,
  musaFuncCachePreferL1 = 2,
  musaFuncCachePreferEqual = 3
};

enum musaFuncAttribute {
  musaFuncAttributeMaxDynamicSharedMemorySize = 8,
  musaFuncAttributePreferredSharedMemoryCarveout = 9
};

struct musaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int maxDynamicSharedSizeBytes;
};

// ---------------------------------------------------------------- streams and events
typedef struct MUstream_st* musaStream_t;
typedef struct MUevent_st* musaEvent_t;

#define musaStreamDefault 0x00
#define musaStreamNonBlocking 0x01
#define musaStreamLegacy ((musaStream_t)0x1)
#define musaStreamPerThread ((musaStream_t)0x2)
#define musaEventDefault 0x00
#define musaEventBlockingSync 0x01
#define musaEventDisableTiming 0x02
#define musaEventInterprocess 0x04
#define musaHostAllocDefault 0x00
#define musaHostAllocPortable 0x01
#define musaHostAllocMapped 0x02
#define musaHostAllocWriteCombined 0x04
#define musaHostRegisterDefault 0x00
#define musaMemAttachGlobal 0x01
#define musaDeviceScheduleAuto 0x00

struct MUstream_st {
  unsigned int flags;
  int priority;
};

struct MUevent_st {
  unsigned int flags;
  bool recorded;
  std::chrono::steady_clock::time_point when;
};

typedef void (*musaHostFn_t)(void* userData);

// ---------------------------------------------------------------- device description
struct musaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int concurrentManagedAccess;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
};

enum musaDeviceAttr {
  musaDevAttrMaxThreadsPerBlock = 1,
  musaDevAttrMaxBlockDimX = 2,
  musaDevAttrMaxBlockDimY = 3,
  musaDevAttrMaxBlockDimZ = 4,
  musaDevAttrMaxGridDimX = 5,
  musaDevAttrMaxGridDimY = 6,
  musaDevAttrMaxGridDimZ = 7,
  musaDevAttrMaxSharedMemoryPerBlock = 8,
  musaDevAttrWarpSize = 10,
  musaDevAttrClockRate = 13,
  musaDevAttrMultiProcessorCount = 16,
  musaDevAttrComputeCapabilityMajor = 75,
  musaDevAttrComputeCapabilityMinor = 76,
  musaDevAttrMaxThreadsPerMultiProcessor = 39,
  musaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  musaDevAttrMaxSharedMemoryPerBlockOptin = 97
};

// ---------------------------------------------------------------- shim internals
namespace musaport {
namespace rt {

// Capacity of the per-block dynamic shared memory buffer (extern __shared__).
constexpr size_t kDynamicSharedCapacity = 256 * 1024;
constexpr size_t kStaticSharedPerBlock = 48 * 1024;  // reported, not enforced
constexpr size_t kAllocationAlignment = 256;         // like device allocations
constexpr int kMultiProcessors = 2;                  // the default of multiprocessors() below

// The multiprocessors the device reports.  PyTorch's kernels size their grids by it (a split
// reduction's blocks per output, a grid-stride loop's blocks, the random generators' grid), and on
// the CPU every block is a set of fibers to switch between at each barrier and warp operation, so a
// smaller count leaves fewer, longer-running GPU threads (2 against 8: sum of 1M floats 3.1x faster,
// the same OpInfo results; docs/benchmarks.md).  Fixed, never the host's core count, so that
// grid sizes, and the rounding of reductions with them, are the same on every machine;
// MUSAPORT_MULTIPROCESSORS (1 to 1024) overrides it for a measurement.
inline int multiprocessors() {
  static const int count = [] {
    const char* env = std::getenv("MUSAPORT_MULTIPROCESSORS");
    if (env == nullptr || *env == '\0') return kMultiProcessors;
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    return (*end == '\0' && n >= 1 && n <= 1024) ? static_cast<int>(n) : kMultiProcessors;
  }();
  return count;
}

inline musaError_t& last_error() {
  static thread_local musaError_t error = musaSuccess;
  return error;
}

// Every call funnels its result through here, as the real runtime records the
// last error of any call.
inline musaError_t record(musaError_t error) {
  if (error != musaSuccess) last_error() = error;
  return error;
}

// A kernel fault (trap, device assert, exception: see cpu/launch.h) waiting to
// be reported.  Process-wide, like the device.  Not sticky, unlike the GPU's:
// it is reported once, by musaGetLastError or by the first synchronising call
// (musaDeviceSynchronize, musaStreamSynchronize, musaEventSynchronize,
// musaMemcpy), whichever comes first; then the runtime works again, so a test
// harness running thousands of tests in one process keeps going (README).
inline std::atomic<int>& pending_fault() {
  static std::atomic<int> fault{musaSuccess};
  return fault;
}

// Called by the launch that faulted, on the launching thread.
inline void raise_fault(musaError_t error) {
  pending_fault().store(error);
  last_error() = error;
}

// What a synchronising call returns: the pending fault (now reported), else `otherwise`.
inline musaError_t report_fault(musaError_t otherwise = musaSuccess) {
  const int fault = pending_fault().exchange(musaSuccess);
  if (fault == musaSuccess) return otherwise;
  if (last_error() == fault) last_error() = musaSuccess;  // reported here, not again by musaGetLastError
  return static_cast<musaError_t>(fault);
}

// Allocation registry: lets musaPointerGetAttributes and musaFree tell
// "device" memory from other pointers.
struct Allocation {
  size_t bytes;
  musaMemoryType type;
};

inline std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

inline std::map<const char*, Allocation>& registry() {
  static std::map<const char*, Allocation> allocations;
  return allocations;
}

inline musaError_t allocate(void** ptr, size_t bytes, musaMemoryType type) {
  if (ptr == nullptr) return record(musaErrorInvalidValue);
  *ptr = nullptr;
  if (bytes == 0) return musaSuccess;
  void* p = nullptr;
  if (posix_memalign(&p, kAllocationAlignment, bytes) != 0) return record(musaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[static_cast<const char*>(p)] = Allocation{bytes, type};
  *ptr = p;
  return musaSuccess;
}

inline musaError_t release(void* ptr) {
  if (ptr == nullptr) return musaSuccess;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    if (registry().erase(static_cast<const char*>(ptr)) == 0) return record(musaErrorInvalidDevicePointer);
  }
  std::free(ptr);
  return musaSuccess;
}

// The allocation containing `ptr`, if any.
inline const Allocation* find(const void* ptr, const char** base) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& all = registry();
  auto it = all.upper_bound(static_cast<const char*>(ptr));
  if (it == all.begin()) return nullptr;
  --it;
  if (static_cast<const char*>(ptr) >= it->first + it->second.bytes) return nullptr;
  *base = it->first;
  return &it->second;
}

inline bool valid_kind(musaMemcpyKind kind) { return kind >= musaMemcpyHostToHost && kind <= musaMemcpyDefault; }

// The default stream handles have no object behind them.
inline bool is_builtin_stream(musaStream_t s) {
  return s == nullptr || s == musaStreamLegacy || s == musaStreamPerThread;
}

}  // namespace rt
}  // namespace musaport

// ---------------------------------------------------------------- errors
inline const char* musaGetErrorName(musaError_t error) {
  switch (error) {
    case musaSuccess: return "musaSuccess";
    case musaErrorInvalidValue: return "musaErrorInvalidValue";
    case musaErrorMemoryAllocation: return "musaErrorMemoryAllocation";
    case musaErrorInitializationError: return "musaErrorInitializationError";
    case musaErrorInsufficientDriver: return "musaErrorInsufficientDriver";
    case musaErrorMusartUnloading: return "musaErrorMusartUnloading";
    case musaErrorInvalidConfiguration: return "musaErrorInvalidConfiguration";
    case musaErrorInvalidPitchValue: return "musaErrorInvalidPitchValue";
    case musaErrorInvalidSymbol: return "musaErrorInvalidSymbol";
    case musaErrorInvalidDevicePointer: return "musaErrorInvalidDevicePointer";
    case musaErrorInvalidMemcpyDirection: return "musaErrorInvalidMemcpyDirection";
    case musaErrorNoDevice: return "musaErrorNoDevice";
    case musaErrorInvalidDevice: return "musaErrorInvalidDevice";
    case musaErrorInvalidResourceHandle: return "musaErrorInvalidResourceHandle";
    case musaErrorNotReady: return "musaErrorNotReady";
    case musaErrorIllegalAddress: return "musaErrorIllegalAddress";
    case musaErrorLaunchOutOfResources: return "musaErrorLaunchOutOfResources";
    case musaErrorPeerAccessAlreadyEnabled: return "musaErrorPeerAccessAlreadyEnabled";
    case musaErrorAssert: return "musaErrorAssert";
    case musaErrorLaunchFailure: return "musaErrorLaunchFailure";
    case musaErrorNotSupported: return "musaErrorNotSupported";
    case musaErrorUnknown: return "musaErrorUnknown";
  }
  return "musaErrorUnknown";
}

inline const char* musaGetErrorString(musaError_t error) {
  switch (error) {
    case musaSuccess: return "no error";
    case musaErrorInvalidValue: return "invalid argument";
    case musaErrorMemoryAllocation: return "out of memory";
    case musaErrorInitializationError: return "initialization error";
    case musaErrorInsufficientDriver: return "MUSA driver version is insufficient for MUSA runtime version";
    case musaErrorMusartUnloading: return "driver shutting down";
    case musaErrorInvalidConfiguration: return "invalid configuration argument";
    case musaErrorInvalidPitchValue: return "invalid pitch argument";
    case musaErrorInvalidSymbol: return "invalid device symbol";
    case musaErrorInvalidDevicePointer: return "invalid device pointer";
    case musaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case musaErrorNoDevice: return "no MUSA-capable device is detected";
    case musaErrorInvalidDevice: return "invalid device ordinal";
    case musaErrorInvalidResourceHandle: return "invalid resource handle";
    case musaErrorNotReady: return "device not ready";
    case musaErrorIllegalAddress: return "an illegal memory access was encountered";
    case musaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case musaErrorPeerAccessAlreadyEnabled: return "peer access is already enabled";
    case musaErrorAssert: return "device-side assert triggered";
    case musaErrorLaunchFailure: return "unspecified launch failure";
    case musaErrorNotSupported: return "operation not supported";
    case musaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}

inline musaError_t musaGetLastError() {
  const musaError_t error = musaport::rt::last_error();
  musaport::rt::last_error() = musaSuccess;
  if (error != musaSuccess) {  // a kernel fault it returns is reported: the next synchronisation succeeds
    int fault = error;
    musaport::rt::pending_fault().compare_exchange_strong(fault, musaSuccess);
  }
  return error;
}

inline musaError_t musaPeekAtLastError() { return musaport::rt::last_error(); }

// ---------------------------------------------------------------- devices
inline musaError_t musaGetDeviceCount(int* count) {
  if (count == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *count = 1;
  return musaSuccess;
}

inline musaError_t musaGetDevice(int* device) {
  if (device == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *device = 0;
  return musaSuccess;
}

inline musaError_t musaSetDevice(int device) {
  return device == 0 ? musaSuccess : musaport::rt::record(musaErrorInvalidDevice);
}

inline musaError_t musaSetDeviceFlags(unsigned int) { return musaSuccess; }
inline musaError_t musaGetDeviceFlags(unsigned int* flags) {
  if (flags) *flags = 0;
  return musaSuccess;
}
// All work is synchronous: synchronising only reports a kernel fault not yet reported.
inline musaError_t musaDeviceSynchronize() { return musaport::rt::report_fault(); }
inline musaError_t musaDeviceReset() { return musaSuccess; }

// ---------------------------------------------------------------- stream capture and graphs
// Nothing is ever captured: streams run their work when it is enqueued.
enum musaStreamCaptureMode {
  musaStreamCaptureModeGlobal = 0,
  musaStreamCaptureModeThreadLocal = 1,
  musaStreamCaptureModeRelaxed = 2
};
enum musaStreamCaptureStatus {
  musaStreamCaptureStatusNone = 0,
  musaStreamCaptureStatusActive = 1,
  musaStreamCaptureStatusInvalidated = 2
};
typedef struct MUgraph_st* musaGraph_t;
typedef struct MUgraphExec_st* musaGraphExec_t;
typedef struct MUgraphNode_st* musaGraphNode_t;

inline musaError_t musaThreadExchangeStreamCaptureMode(musaStreamCaptureMode*) { return musaSuccess; }
inline musaError_t musaStreamIsCapturing(musaStream_t, musaStreamCaptureStatus* status) {
  if (status) *status = musaStreamCaptureStatusNone;
  return musaSuccess;
}
inline musaError_t musaStreamGetCaptureInfo(musaStream_t, musaStreamCaptureStatus* status,
                                            unsigned long long* id = nullptr) {
  if (status) *status = musaStreamCaptureStatusNone;
  if (id) *id = 0;
  return musaSuccess;
}
// Capturing a stream into a graph is not supported: every call says so, as a device without the
// feature would, and the caller's error path runs (a linked program never meets an undefined symbol).
enum musaGraphInstantiateFlags {
  musaGraphInstantiateFlagAutoFreeOnLaunch = 1,
  musaGraphInstantiateFlagUpload = 2,
  musaGraphInstantiateFlagDeviceLaunch = 4,
  musaGraphInstantiateFlagUseNodePriority = 8
};
enum musaGraphDebugDotFlags { musaGraphDebugDotFlagsVerbose = 1 };
inline musaError_t musaStreamBeginCapture(musaStream_t, musaStreamCaptureMode) {
  return musaport::rt::record(musaErrorNotSupported);
}
inline musaError_t musaStreamEndCapture(musaStream_t, musaGraph_t*) { return musaport::rt::record(musaErrorNotSupported); }
inline musaError_t musaGraphInstantiate(musaGraphExec_t*, musaGraph_t, unsigned long long = 0) {
  return musaport::rt::record(musaErrorNotSupported);
}
inline musaError_t musaGraphInstantiateWithFlags(musaGraphExec_t*, musaGraph_t, unsigned long long = 0) {
  return musaport::rt::record(musaErrorNotSupported);
}
inline musaError_t musaGraphLaunch(musaGraphExec_t, musaStream_t) { return musaport::rt::record(musaErrorNotSupported); }
inline musaError_t musaGraphExecDestroy(musaGraphExec_t) { return musaSuccess; }
inline musaError_t musaGraphDestroy(musaGraph_t) { return musaSuccess; }
inline musaError_t musaGraphGetNodes(musaGraph_t, musaGraphNode_t*, size_t* count) {
  if (count) *count = 0;
  return musaSuccess;
}
inline musaError_t musaGraphDebugDotPrint(musaGraph_t, const char*, unsigned int) {
  return musaport::rt::record(musaErrorNotSupported);
}

// ---------------------------------------------------------------- inter-process handles
#define MUSA_IPC_HANDLE_SIZE 64
typedef struct musaIpcEventHandle_st {
  char reserved[MUSA_IPC_HANDLE_SIZE];
} musaIpcEventHandle_t;
typedef struct musaIpcMemHandle_st {
  char reserved[MUSA_IPC_HANDLE_SIZE];
} musaIpcMemHandle_t;
#define musaIpcMemLazyEnablePeerAccess 0x01
// One process owns the one host "device": sharing memory or events with another process is not supported.
inline musaError_t musaIpcGetEventHandle(musaIpcEventHandle_t*, musaEvent_t) { return musaport::rt::record(musaErrorNotSupported); }
inline musaError_t musaIpcOpenEventHandle(musaEvent_t*, musaIpcEventHandle_t) { return musaport::rt::record(musaErrorNotSupported); }
inline musaError_t musaIpcGetMemHandle(musaIpcMemHandle_t*, void*) { return musaport::rt::record(musaErrorNotSupported); }
inline musaError_t musaIpcOpenMemHandle(void**, musaIpcMemHandle_t, unsigned int) { return musaport::rt::record(musaErrorNotSupported); }
inline musaError_t musaIpcCloseMemHandle(void*) { return musaport::rt::record(musaErrorNotSupported); }


inline musaError_t musaDriverGetVersion(int* version) {
  if (version) *version = MUSART_VERSION;
  return musaSuccess;
}

inline musaError_t musaRuntimeGetVersion(int* version) {
  if (version) *version = MUSART_VERSION;
  return musaSuccess;
}

inline musaError_t musaGetDeviceProperties(musaDeviceProp* prop, int device) {
  if (prop == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  if (device != 0) return musaport::rt::record(musaErrorInvalidDevice);
  std::memset(prop, 0, sizeof(*prop));
  std::strncpy(prop->name, "musaport CPU emulator", sizeof(prop->name) - 1);
  prop->totalGlobalMem = size_t(16) << 30;
  prop->sharedMemPerBlock = musaport::rt::kStaticSharedPerBlock;
  prop->sharedMemPerBlockOptin = musaport::rt::kDynamicSharedCapacity;
  prop->sharedMemPerMultiprocessor = musaport::rt::kDynamicSharedCapacity;
  prop->regsPerBlock = 65536;
  prop->regsPerMultiprocessor = 65536;
  prop->warpSize = 32;
  prop->memPitch = size_t(1) << 31;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->clockRate = 1000000;
  prop->totalConstMem = 65536;
  prop->major = 7;
  prop->minor = 0;
  prop->textureAlignment = 512;
  prop->multiProcessorCount = musaport::rt::multiprocessors();
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->unifiedAddressing = 1;
  prop->managedMemory = 1;
  prop->memoryClockRate = 1000000;
  prop->memoryBusWidth = 256;
  prop->l2CacheSize = 4 << 20;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->streamPrioritiesSupported = 1;
  return musaSuccess;
}

inline musaError_t musaDeviceGetAttribute(int* value, musaDeviceAttr attr, int device) {
  if (value == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  musaDeviceProp prop;
  if (musaGetDeviceProperties(&prop, device) != musaSuccess) return musaErrorInvalidDevice;
  switch (attr) {
    case musaDevAttrMaxThreadsPerBlock: *value = prop.maxThreadsPerBlock; break;
    case musaDevAttrMaxBlockDimX: *value = prop.maxThreadsDim[0]; break;
    case musaDevAttrMaxBlockDimY: *value = prop.maxThreadsDim[1]; break;
    case musaDevAttrMaxBlockDimZ: *value = prop.maxThreadsDim[2]; break;
    case musaDevAttrMaxGridDimX: *value = prop.maxGridSize[0]; break;
    case musaDevAttrMaxGridDimY: *value = prop.maxGridSize[1]; break;
    case musaDevAttrMaxGridDimZ: *value = prop.maxGridSize[2]; break;
    case musaDevAttrMaxSharedMemoryPerBlock: *value = (int)prop.sharedMemPerBlock; break;
    case musaDevAttrWarpSize: *value = prop.warpSize; break;
    case musaDevAttrClockRate: *value = prop.clockRate; break;
    case musaDevAttrMultiProcessorCount: *value = prop.multiProcessorCount; break;
    case musaDevAttrComputeCapabilityMajor: *value = prop.major; break;
    case musaDevAttrComputeCapabilityMinor: *value = prop.minor; break;
    case musaDevAttrMaxThreadsPerMultiProcessor: *value = prop.maxThreadsPerMultiProcessor; break;
    case musaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)prop.sharedMemPerMultiprocessor; break;
    case musaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)prop.sharedMemPerBlockOptin; break;
    default: return musaport::rt::record(musaErrorInvalidValue);
  }
  return musaSuccess;
}

inline musaError_t musaDeviceCanAccessPeer(int* can, int, int) {
  if (can) *can = 0;
  return musaSuccess;
}
inline musaError_t musaDeviceEnablePeerAccess(int, unsigned int) { return musaport::rt::record(musaErrorInvalidDevice); }
inline musaError_t musaDeviceSetLimit(musaLimit, size_t) { return musaSuccess; }
inline musaError_t musaDeviceGetLimit(size_t* value, musaLimit limit) {
  if (value == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *value = limit == musaLimitStackSize ? 128 * 1024 : size_t(8) << 20;
  return musaSuccess;
}
inline musaError_t musaDeviceSetCacheConfig(musaFuncCache) { return musaSuccess; }
inline musaError_t musaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -1;
  return musaSuccess;
}

// ---------------------------------------------------------------- memory
inline musaError_t musaMalloc(void** ptr, size_t bytes) {
  return musaport::rt::allocate(ptr, bytes, musaMemoryTypeDevice);
}
inline musaError_t musaMallocManaged(void** ptr, size_t bytes, unsigned int = musaMemAttachGlobal) {
  return musaport::rt::allocate(ptr, bytes, musaMemoryTypeManaged);
}
inline musaError_t musaMallocHost(void** ptr, size_t bytes) {
  return musaport::rt::allocate(ptr, bytes, musaMemoryTypeHost);
}
inline musaError_t musaHostAlloc(void** ptr, size_t bytes, unsigned int) {
  return musaport::rt::allocate(ptr, bytes, musaMemoryTypeHost);
}
inline musaError_t musaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *pitch = (width + musaport::rt::kAllocationAlignment - 1) / musaport::rt::kAllocationAlignment *
           musaport::rt::kAllocationAlignment;
  return musaport::rt::allocate(ptr, *pitch * height, musaMemoryTypeDevice);
}
inline musaError_t musaFree(void* ptr) { return musaport::rt::release(ptr); }
inline musaError_t musaFreeHost(void* ptr) { return musaport::rt::release(ptr); }
inline musaError_t musaHostRegister(void*, size_t, unsigned int) { return musaSuccess; }
inline musaError_t musaHostUnregister(void*) { return musaSuccess; }
inline musaError_t musaHostGetDevicePointer(void** device, void* host, unsigned int) {
  if (device == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *device = host;  // host and device share one address space here
  return musaSuccess;
}

inline musaError_t musaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes) *free_bytes = size_t(15) << 30;
  if (total_bytes) *total_bytes = size_t(16) << 30;
  return musaSuccess;
}

inline musaError_t musaPointerGetAttributes(musaPointerAttributes* attr, const void* ptr) {
  if (attr == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  const char* base = nullptr;
  const musaport::rt::Allocation* a = musaport::rt::find(ptr, &base);
  attr->type = a ? a->type : musaMemoryTypeUnregistered;
  attr->device = 0;
  attr->devicePointer = a && a->type != musaMemoryTypeHost ? const_cast<void*>(ptr) : nullptr;
  attr->hostPointer = a == nullptr || a->type != musaMemoryTypeDevice ? const_cast<void*>(ptr) : nullptr;
  return musaSuccess;
}

namespace musaport::rt {
inline musaError_t copy(void* dst, const void* src, size_t bytes, musaMemcpyKind kind) {
  if (!valid_kind(kind)) return record(musaErrorInvalidMemcpyDirection);
  if (bytes == 0) return musaSuccess;
  if (dst == nullptr || src == nullptr) return record(musaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return musaSuccess;
}
}  // namespace musaport::rt

// The blocking copy synchronises, so it reports a pending kernel fault; the other copies do not.
inline musaError_t musaMemcpy(void* dst, const void* src, size_t bytes, musaMemcpyKind kind) {
  const musaError_t error = musaport::rt::copy(dst, src, bytes, kind);
  return error != musaSuccess ? error : musaport::rt::report_fault();
}
inline musaError_t musaMemcpyAsync(void* dst, const void* src, size_t bytes, musaMemcpyKind kind,
                                   musaStream_t = nullptr) {
  return musaport::rt::copy(dst, src, bytes, kind);
}
inline musaError_t musaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                size_t height, musaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return musaport::rt::record(musaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row) {
    const musaError_t e = musaport::rt::copy(static_cast<char*>(dst) + row * dpitch,
                                     static_cast<const char*>(src) + row * spitch, width, kind);
    if (e != musaSuccess) return e;
  }
  return musaSuccess;
}
inline musaError_t musaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                     size_t height, musaMemcpyKind kind, musaStream_t = nullptr) {
  return musaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
inline musaError_t musaMemcpyPeer(void* dst, int, const void* src, int, size_t bytes) {
  return musaport::rt::copy(dst, src, bytes, musaMemcpyDefault);
}
inline musaError_t musaMemset(void* dst, int value, size_t bytes) {
  if (bytes == 0) return musaSuccess;
  if (dst == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  std::memset(dst, value, bytes);
  return musaSuccess;
}
inline musaError_t musaMemsetAsync(void* dst, int value, size_t bytes, musaStream_t = nullptr) {
  return musaMemset(dst, value, bytes);
}
inline musaError_t musaMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  for (size_t row = 0; row < height; ++row) std::memset(static_cast<char*>(dst) + row * pitch, value, width);
  return musaSuccess;
}

// Symbols are ordinary variables in the emulator; `symbol` is their address.
inline musaError_t musaMemcpyToSymbol(const void* symbol, const void* src, size_t bytes, size_t offset = 0,
                                      musaMemcpyKind kind = musaMemcpyHostToDevice) {
  if (symbol == nullptr) return musaport::rt::record(musaErrorInvalidSymbol);
  return musaport::rt::copy(static_cast<char*>(const_cast<void*>(symbol)) + offset, src, bytes, kind);
}
inline musaError_t musaMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset = 0,
                                        musaMemcpyKind kind = musaMemcpyDeviceToHost) {
  if (symbol == nullptr) return musaport::rt::record(musaErrorInvalidSymbol);
  return musaport::rt::copy(dst, static_cast<const char*>(symbol) + offset, bytes, kind);
}
inline musaError_t musaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t bytes, size_t offset,
                                           musaMemcpyKind kind, musaStream_t = nullptr) {
  return musaMemcpyToSymbol(symbol, src, bytes, offset, kind);
}
inline musaError_t musaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes, size_t offset,
                                             musaMemcpyKind kind, musaStream_t = nullptr) {
  return musaMemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}
inline musaError_t musaGetSymbolAddress(void** ptr, const void* symbol) {
  if (ptr == nullptr || symbol == nullptr) return musaport::rt::record(musaErrorInvalidSymbol);
  *ptr = const_cast<void*>(symbol);
  return musaSuccess;
}

// ---------------------------------------------------------------- streams
inline musaError_t musaStreamCreateWithPriority(musaStream_t* stream, unsigned int flags, int priority) {
  if (stream == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *stream = new MUstream_st{flags, priority};
  return musaSuccess;
}
inline musaError_t musaStreamCreateWithFlags(musaStream_t* stream, unsigned int flags) {
  return musaStreamCreateWithPriority(stream, flags, 0);
}
inline musaError_t musaStreamCreate(musaStream_t* stream) { return musaStreamCreateWithPriority(stream, 0, 0); }
inline musaError_t musaStreamDestroy(musaStream_t stream) {
  if (musaport::rt::is_builtin_stream(stream)) return musaport::rt::record(musaErrorInvalidResourceHandle);
  delete stream;
  return musaSuccess;
}
inline musaError_t musaStreamSynchronize(musaStream_t) { return musaport::rt::report_fault(); }
inline musaError_t musaStreamQuery(musaStream_t) { return musaSuccess; }
inline musaError_t musaStreamGetFlags(musaStream_t stream, unsigned int* flags) {
  if (flags) *flags = musaport::rt::is_builtin_stream(stream) ? 0u : stream->flags;
  return musaSuccess;
}
inline musaError_t musaStreamGetPriority(musaStream_t stream, int* priority) {
  if (priority) *priority = musaport::rt::is_builtin_stream(stream) ? 0 : stream->priority;
  return musaSuccess;
}
inline musaError_t musaLaunchHostFunc(musaStream_t, musaHostFn_t fn, void* data) {
  if (fn == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  fn(data);  // the stream is already idle
  return musaSuccess;
}

// ---------------------------------------------------------------- events
inline musaError_t musaEventCreateWithFlags(musaEvent_t* event, unsigned int flags) {
  if (event == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  *event = new MUevent_st{flags, false, {}};
  return musaSuccess;
}
inline musaError_t musaEventCreate(musaEvent_t* event) { return musaEventCreateWithFlags(event, musaEventDefault); }
inline musaError_t musaEventDestroy(musaEvent_t event) {
  if (event == nullptr) return musaport::rt::record(musaErrorInvalidResourceHandle);
  delete event;
  return musaSuccess;
}
inline musaError_t musaEventRecord(musaEvent_t event, musaStream_t = nullptr) {
  if (event == nullptr) return musaport::rt::record(musaErrorInvalidResourceHandle);
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();  // everything before it has already run
  return musaSuccess;
}
inline musaError_t musaEventQuery(musaEvent_t event) {
  return event ? musaSuccess : musaport::rt::record(musaErrorInvalidResourceHandle);
}
inline musaError_t musaEventSynchronize(musaEvent_t event) {
  const musaError_t error = musaEventQuery(event);
  return error != musaSuccess ? error : musaport::rt::report_fault();
}
inline musaError_t musaStreamWaitEvent(musaStream_t, musaEvent_t event, unsigned int = 0) {
  return musaEventQuery(event);
}
inline musaError_t musaEventElapsedTime(float* ms, musaEvent_t start, musaEvent_t end) {
  if (ms == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  if (start == nullptr || end == nullptr) return musaport::rt::record(musaErrorInvalidResourceHandle);
  if ((start->flags | end->flags) & musaEventDisableTiming) return musaport::rt::record(musaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return musaport::rt::record(musaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return musaSuccess;
}

// ---------------------------------------------------------------- kernels (C API)
inline musaError_t musaFuncSetCacheConfig(const void*, musaFuncCache) { return musaSuccess; }
inline musaError_t musaFuncSetAttribute(const void*, musaFuncAttribute attr, int value) {
  if (attr == musaFuncAttributeMaxDynamicSharedMemorySize && (value < 0 || size_t(value) > musaport::rt::kDynamicSharedCapacity))
    return musaport::rt::record(musaErrorInvalidValue);
  return musaSuccess;
}
inline musaError_t musaFuncGetAttributes(musaFuncAttributes* attr, const void*) {
  if (attr == nullptr) return musaport::rt::record(musaErrorInvalidValue);
  std::memset(attr, 0, sizeof(*attr));
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = 32;
  attr->ptxVersion = 70;
  attr->binaryVersion = 70;
  attr->maxDynamicSharedSizeBytes = (int)musaport::rt::kDynamicSharedCapacity;
  return musaSuccess;
}
inline musaError_t musaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void*, int block_size, size_t) {
  if (blocks == nullptr || block_size <= 0) return musaport::rt::record(musaErrorInvalidValue);
  *blocks = block_size >= 2048 ? 1 : 2048 / block_size;
  return musaSuccess;
}

// Stream-ordered allocation and memory pools.
#include "musaport_shim/mempool.h"
