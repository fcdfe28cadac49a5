// musaport shim: muSPARSE's legacy index conversions and sorts on the CPU
// (included by musparse.h): coo2csr, the identity permutation, coosortByRow
// and csrsort, 32-bit indices.
//
// The sorts are stable and need no workspace (their buffer sizes are 0):
// coosortByRow orders the entries by row, then column (entries at the same
// place keep their order); csrsort orders each row's columns.  P is the
// permutation the caller passes in (often the identity) and comes back
// permuted the same way, so the values can be gathered through it
// afterwards.  Indices are compared as stored, so either index base sorts
// the same.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

namespace musaport_sparse {

// The order that sorts entries [0, n) by key(i), stably.
template <typename K> inline std::vector<int> stable_order(int n, K key) {
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return key(x) < key(y); });
  return order;
}

// a[i] = a[order[i]] for every i.
inline void permute(int* a, const std::vector<int>& order, size_t first = 0) {
  if (a == nullptr) return;
  std::vector<int> copy(order.size());
  for (size_t i = 0; i < order.size(); ++i) copy[i] = a[first + order[i]];
  std::copy(copy.begin(), copy.end(), a + first);
}

}  // namespace musaport_sparse

// Row offsets (m + 1 of them, in idxBase) from the row index of each of nnz entries; the entries must be
// sorted by row for the offsets to describe them, as in the toolkit.
inline musparseStatus_t musparseXcoo2csr(musparseHandle_t handle, const int* cooRowInd, int nnz, int m, int* csrRowPtr,
                                         musparseIndexBase_t idxBase) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (nnz < 0 || m < 0 || csrRowPtr == nullptr || (nnz > 0 && cooRowInd == nullptr))
    return MUSPARSE_STATUS_INVALID_VALUE;
  const int base = idxBase == MUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  std::fill(csrRowPtr, csrRowPtr + m + 1, 0);
  for (int e = 0; e < nnz; ++e) {
    const int r = cooRowInd[e] - base;
    if (r < 0 || r >= m) return MUSPARSE_STATUS_INVALID_VALUE;
    ++csrRowPtr[r + 1];
  }
  csrRowPtr[0] = base;
  for (int i = 0; i < m; ++i) csrRowPtr[i + 1] += csrRowPtr[i];
  return MUSPARSE_STATUS_SUCCESS;
}

inline musparseStatus_t musparseCreateIdentityPermutation(musparseHandle_t handle, int n, int* p) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (n < 0 || (n > 0 && p == nullptr)) return MUSPARSE_STATUS_INVALID_VALUE;
  std::iota(p, p + n, 0);
  return MUSPARSE_STATUS_SUCCESS;
}

inline musparseStatus_t musparseXcoosort_bufferSizeExt(musparseHandle_t handle, int m, int n, int nnz, const int*,
                                                       const int*, size_t* pBufferSizeInBytes) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || nnz < 0 || pBufferSizeInBytes == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *pBufferSizeInBytes = 0;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseXcoosortByRow(musparseHandle_t handle, int m, int n, int nnz, int* cooRowsA,
                                              int* cooColsA, int* P, void*) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || nnz < 0 || (nnz > 0 && (cooRowsA == nullptr || cooColsA == nullptr)))
    return MUSPARSE_STATUS_INVALID_VALUE;
  const std::vector<int> order = musaport_sparse::stable_order(nnz, [&](int i) {
    return std::make_pair(cooRowsA[i], cooColsA[i]);
  });
  musaport_sparse::permute(cooRowsA, order);
  musaport_sparse::permute(cooColsA, order);
  musaport_sparse::permute(P, order);
  return MUSPARSE_STATUS_SUCCESS;
}

inline musparseStatus_t musparseXcsrsort_bufferSizeExt(musparseHandle_t handle, int m, int n, int nnz, const int*,
                                                       const int*, size_t* pBufferSizeInBytes) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || nnz < 0 || pBufferSizeInBytes == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *pBufferSizeInBytes = 0;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseXcsrsort(musparseHandle_t handle, int m, int n, int nnz, const musparseMatDescr_t descrA,
                                         const int* csrRowPtrA, int* csrColIndA, int* P, void*) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || nnz < 0 || csrRowPtrA == nullptr || (nnz > 0 && csrColIndA == nullptr))
    return MUSPARSE_STATUS_INVALID_VALUE;
  const int base = musaport_sparse::csr_base(descrA);
  for (int r = 0; r < m; ++r) {
    const int first = csrRowPtrA[r] - base, count = csrRowPtrA[r + 1] - csrRowPtrA[r];
    if (first < 0 || count < 0 || first + count > nnz) return MUSPARSE_STATUS_INVALID_VALUE;
    const std::vector<int> order =
        musaport_sparse::stable_order(count, [&](int i) { return csrColIndA[first + i]; });
    musaport_sparse::permute(csrColIndA, order, static_cast<size_t>(first));
    musaport_sparse::permute(P, order, static_cast<size_t>(first));
  }
  return MUSPARSE_STATUS_SUCCESS;
}
