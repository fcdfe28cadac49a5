// musaport shim: muSPARSE's legacy csrgeam2 on the CPU (included by musparse.h).
//
// C = alpha * A + beta * B for m x n CSR matrices with 32-bit indices, in
// three steps: the buffer size (0: rows are merged in vectors of the call's
// own), the row offsets and nnz of C (the union of A's and B's patterns,
// whatever alpha and beta are, as in the toolkit), then C's columns and
// values, written where the offsets say.  Each row of C holds its columns in
// ascending order, each once (repeated entries of a row are summed); each
// matrix has its descriptor's index base.  S, D, C and Z forms; muComplex and
// muDoubleComplex values are computed as std::complex.
#pragma once

#include <algorithm>
#include <complex>
#include <vector>

namespace musaport_sparse {

// Row i of alpha * A + beta * B as ascending columns; values only when both value arrays are given.
template <typename T>
inline void csrgeam2_row(int i, const T* alpha, const CsrView<T>& a, const T* beta, const CsrView<T>& b,
                         std::vector<T>& dense, std::vector<char>& seen, std::vector<int>& columns) {
  columns.clear();
  auto add = [&](const CsrView<T>& m, const T* scale) {
    for (int e = m.offsets[i] - m.base; e < m.offsets[i + 1] - m.base; ++e) {
      const int col = m.columns[e] - m.base;
      if (!seen[col]) seen[col] = 1, dense[col] = T(0), columns.push_back(col);
      if (m.values != nullptr) dense[col] += *scale * m.values[e];
    }
  };
  add(a, alpha);
  add(b, beta);
  std::sort(columns.begin(), columns.end());
  for (int col : columns) seen[col] = 0;
}

// The structure step (nnz_total given: writes the row offsets and nnz) or the value step (writes columns
// and values into the rows the offsets give).
template <typename T>
inline musparseStatus_t csrgeam2(musparseHandle_t handle, int m, int n, const T* alpha, const musparseMatDescr_t descrA,
                                 int nnzA, const T* valA, const int* rowA, const int* colA, const T* beta,
                                 const musparseMatDescr_t descrB, int nnzB, const T* valB, const int* rowB,
                                 const int* colB, const musparseMatDescr_t descrC, T* valC, int* rowC, int* colC,
                                 int* nnz_total) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || nnzA < 0 || nnzB < 0 || rowA == nullptr || rowB == nullptr || rowC == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  if (nnz_total == nullptr && (alpha == nullptr || beta == nullptr)) return MUSPARSE_STATUS_INVALID_VALUE;
  const CsrView<T> a{rowA, colA, valA, csr_base(descrA)}, b{rowB, colB, valB, csr_base(descrB)};
  const int base = csr_base(descrC);
  std::vector<T> dense(static_cast<size_t>(n));
  std::vector<char> seen(static_cast<size_t>(n), 0);
  std::vector<int> columns;
  int written = 0;
  for (int i = 0; i < m; ++i) {
    csrgeam2_row(i, alpha, a, beta, b, dense, seen, columns);
    if (nnz_total != nullptr) {
      rowC[i] = written + base;
      written += static_cast<int>(columns.size());
      continue;
    }
    written = rowC[i] - base;
    for (int col : columns) colC[written] = col + base, valC[written] = dense[col], ++written;
  }
  if (nnz_total != nullptr) rowC[m] = written + base, *nnz_total = written;
  return MUSPARSE_STATUS_SUCCESS;
}

}  // namespace musaport_sparse

inline musparseStatus_t musparseXcsrgeam2Nnz(musparseHandle_t handle, int m, int n, const musparseMatDescr_t descrA,
                                             int nnzA, const int* csrSortedRowPtrA, const int* csrSortedColIndA,
                                             const musparseMatDescr_t descrB, int nnzB, const int* csrSortedRowPtrB,
                                             const int* csrSortedColIndB, const musparseMatDescr_t descrC,
                                             int* csrSortedRowPtrC, int* nnzTotalDevHostPtr, void*) {
  if (nnzTotalDevHostPtr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  return musaport_sparse::csrgeam2<double>(handle, m, n, nullptr, descrA, nnzA, nullptr, csrSortedRowPtrA,
                                           csrSortedColIndA, nullptr, descrB, nnzB, nullptr, csrSortedRowPtrB,
                                           csrSortedColIndB, descrC, nullptr, csrSortedRowPtrC, nullptr,
                                           nnzTotalDevHostPtr);
}

// The typed entry points: the buffer size and the value step, for the API's value type T and the type C
// computes it in.
#define MUSAPORT_SPARSE_CSRGEAM2(fn, T, C)                                                                          \
  inline musparseStatus_t fn##_bufferSizeExt(                                                                     \
      musparseHandle_t handle, int m, int n, const T*, const musparseMatDescr_t, int, const T*, const int*,        \
      const int*, const T*, const musparseMatDescr_t, int, const T*, const int*, const int*,                      \
      const musparseMatDescr_t, const T*, const int*, const int*, size_t* pBufferSizeInBytes) {                   \
    if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;                                                \
    if (m < 0 || n < 0 || pBufferSizeInBytes == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;                    \
    *pBufferSizeInBytes = 0;                                                                                      \
    return MUSPARSE_STATUS_SUCCESS;                                                                               \
  }                                                                                                               \
  inline musparseStatus_t fn(musparseHandle_t handle, int m, int n, const T* alpha, const musparseMatDescr_t descrA, \
                             int nnzA, const T* csrSortedValA, const int* csrSortedRowPtrA, const int* csrSortedColIndA, \
                             const T* beta, const musparseMatDescr_t descrB, int nnzB, const T* csrSortedValB,    \
                             const int* csrSortedRowPtrB, const int* csrSortedColIndB,                            \
                             const musparseMatDescr_t descrC, T* csrSortedValC, int* csrSortedRowPtrC,            \
                             int* csrSortedColIndC, void*) {                                                      \
    return musaport_sparse::csrgeam2<C>(                                                                          \
        handle, m, n, reinterpret_cast<const C*>(alpha), descrA, nnzA, reinterpret_cast<const C*>(csrSortedValA), \
        csrSortedRowPtrA, csrSortedColIndA, reinterpret_cast<const C*>(beta), descrB, nnzB,                       \
        reinterpret_cast<const C*>(csrSortedValB), csrSortedRowPtrB, csrSortedColIndB, descrC,                    \
        reinterpret_cast<C*>(csrSortedValC), csrSortedRowPtrC, csrSortedColIndC, nullptr);                        \
  }
MUSAPORT_SPARSE_CSRGEAM2(musparseScsrgeam2, float, float)
MUSAPORT_SPARSE_CSRGEAM2(musparseDcsrgeam2, double, double)
MUSAPORT_SPARSE_CSRGEAM2(musparseCcsrgeam2, muComplex, std::complex<float>)
MUSAPORT_SPARSE_CSRGEAM2(musparseZcsrgeam2, muDoubleComplex, std::complex<double>)
#undef MUSAPORT_SPARSE_CSRGEAM2
