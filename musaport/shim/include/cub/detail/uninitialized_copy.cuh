// musaport shim: <cub/detail/uninitialized_copy.cuh>: cub::detail::uninitialized_copy (see cub/cub.cuh).
//
// Writes `val` into the uninitialised storage at `ptr` (shared memory of a collective's TempStorage):
// an assignment for trivially copyable types, placement new otherwise (no object lives there yet).
#pragma once

#include <new>
#include <type_traits>

#include <cub/config.cuh>

CUB_NS_PREFIX
namespace cub {
namespace detail {

template <typename T, typename U, typename std::enable_if<std::is_trivially_copyable<T>::value, int>::type = 0>
MUSAPORT_HD void uninitialized_copy(T* ptr, U&& val) {
  *ptr = static_cast<U&&>(val);
}

template <typename T, typename U, typename std::enable_if<!std::is_trivially_copyable<T>::value, int>::type = 0>
MUSAPORT_HD void uninitialized_copy(T* ptr, U&& val) {
  new (ptr) T(static_cast<U&&>(val));
}

}  // namespace detail
}  // namespace cub
CUB_NS_POSTFIX
