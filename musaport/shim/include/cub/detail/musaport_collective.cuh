// musaport shim, not a cub header: what the shim's block- and warp-wide
// collectives (cub/block/*.cuh, cub/warp/*.cuh) share (see cub/cub.cuh).
#pragma once

#include <cub/config.cuh>

CUB_NS_PREFIX
namespace cub {

// ------------------------------------------------------------ block- and warp-wide collectives
// cub's interfaces; the bodies stop the kernel with __trap(): enough for the
// syntax check (which needs definitions when a template argument has internal
// linkage), not for running the collectives.
namespace musaport_detail {
__device__ inline void collective_unsupported() { __trap(); }
}  // namespace musaport_detail

}  // namespace cub
CUB_NS_POSTFIX
