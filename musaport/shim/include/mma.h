// musaport shim: <mma.h>, warp matrix multiply-accumulate (WMMA) in the
// mtmusa::wmma namespace (CUDA's nvcuda::wmma): fragments and the
// load/store/fill/mma functions, declared for device code (syntax checks).
#pragma once

#include "musaport_shim/config.h"
#include "musa_fp16.h"
#include "musa_bf16.h"

namespace mtmusa {
namespace wmma {

struct matrix_a;
struct matrix_b;
struct accumulator;
struct row_major;
struct col_major;

enum layout_t { mem_row_major, mem_col_major };

namespace precision {
struct tf32;
}  // namespace precision

namespace musaport_detail {
template <typename Use, int m, int n, int k>
struct fragment_elements {
  static constexpr int value = (m * k) / 32 > 0 ? (m * k) / 32 : 1;
};
template <int m, int n, int k>
struct fragment_elements<matrix_b, m, n, k> {
  static constexpr int value = (k * n) / 32 > 0 ? (k * n) / 32 : 1;
};
template <int m, int n, int k>
struct fragment_elements<accumulator, m, n, k> {
  static constexpr int value = (m * n) / 32 > 0 ? (m * n) / 32 : 1;
};
template <typename T>
struct storage {
  using type = T;
};
template <>
struct storage<precision::tf32> {
  using type = float;
};
}  // namespace musaport_detail

// A warp's share of an m x n x k tile: each lane holds num_elements values.
template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment {
 public:
  using element_type = typename musaport_detail::storage<T>::type;
  static constexpr int num_elements = musaport_detail::fragment_elements<Use, m, n, k>::value;
  element_type x[num_elements];
};

template <typename Use, int m, int n, int k, typename T, typename Layout>
__device__ void fill_fragment(fragment<Use, m, n, k, T, Layout>& a,
                              const typename fragment<Use, m, n, k, T, Layout>::element_type& v);
template <typename Use, int m, int n, int k, typename T, typename Layout>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, Layout>& a, const T* p, unsigned ldm);
template <typename Use, int m, int n, int k, typename T, typename Layout, typename U>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, Layout>& a, const U* p, unsigned ldm);
template <int m, int n, int k, typename T>
__device__ void load_matrix_sync(fragment<accumulator, m, n, k, T>& a, const T* p, unsigned ldm, layout_t layout);
template <int m, int n, int k, typename T>
__device__ void store_matrix_sync(T* p, const fragment<accumulator, m, n, k, T>& a, unsigned ldm, layout_t layout);
template <int m, int n, int k, typename Tab, typename LA, typename LB, typename Tc, typename Td>
__device__ void mma_sync(fragment<accumulator, m, n, k, Td>& d, const fragment<matrix_a, m, n, k, Tab, LA>& a,
                         const fragment<matrix_b, m, n, k, Tab, LB>& b, const fragment<accumulator, m, n, k, Tc>& c);

}  // namespace wmma
}  // namespace mtmusa
