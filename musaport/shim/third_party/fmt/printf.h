// musaport shim: fmt::sprintf for the CPU build of a port, when no fmt is on the include path.
//
// PyTorch's build takes fmt from its third_party submodule, which a source tarball and the torch
// wheel both lack; ported code uses only printf-style fmt::sprintf (the tunable GEMM signatures).
// This folder comes after every other include folder, so a real fmt wins.
#pragma once

#include <cstdio>
#include <string>
#include <type_traits>

namespace fmt {
namespace musaport_detail {
template <class T>
inline decltype(auto) c_arg(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return value.c_str();
  } else {
    return value;
  }
}
}  // namespace musaport_detail

template <class... Args>
std::string sprintf(const char* format, const Args&... args) {
  int size = std::snprintf(nullptr, 0, format, musaport_detail::c_arg(args)...);
  if (size <= 0) {
    return std::string();
  }
  std::string out(static_cast<size_t>(size), '\0');
  std::snprintf(out.data(), out.size() + 1, format, musaport_detail::c_arg(args)...);
  return out;
}
}  // namespace fmt
