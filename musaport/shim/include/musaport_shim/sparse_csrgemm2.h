// musaport shim: muSPARSE's legacy csrgemm2 on the CPU (included by musparse.h).
//
// C = alpha * A * B + beta * D for CSR matrices with 32-bit indices.  A null
// alpha leaves out A * B and a null beta leaves out D, as the toolkit's do.
// Each row of C holds its columns in ascending order, each once: the
// structure step and the value step walk the same rows the same way, so the
// values land where the structure put them.
#pragma once

#include <algorithm>
#include <vector>

namespace musaport_sparse {

inline int csr_base(const musparseMatDescr_t d) {
  return d != nullptr && d->base == MUSPARSE_INDEX_BASE_ONE ? 1 : 0;
}

// One CSR operand: its row offsets, column indices and values (values may be null in the structure step).
template <typename T> struct CsrView {
  const int* offsets;
  const int* columns;
  const T* values;
  int base;
};

// Row i of alpha * A * B + beta * D as (column, value) pairs in ascending column order.
template <typename T>
inline void csrgemm2_row(int i, const T* alpha, const CsrView<T>& a, const CsrView<T>& b, const T* beta,
                         const CsrView<T>& d, std::vector<T>& dense, std::vector<char>& seen,
                         std::vector<int>& columns) {
  columns.clear();
  auto add = [&](int col, T v) {
    if (!seen[col]) seen[col] = 1, dense[col] = T(0), columns.push_back(col);
    dense[col] += v;
  };
  if (alpha != nullptr && a.offsets != nullptr) {
    for (int e = a.offsets[i] - a.base; e < a.offsets[i + 1] - a.base; ++e) {
      const int p = a.columns[e] - a.base;
      const T av = a.values != nullptr ? *alpha * a.values[e] : T(0);
      for (int f = b.offsets[p] - b.base; f < b.offsets[p + 1] - b.base; ++f)
        add(b.columns[f] - b.base, b.values != nullptr ? av * b.values[f] : T(0));
    }
  }
  if (beta != nullptr && d.offsets != nullptr) {
    for (int e = d.offsets[i] - d.base; e < d.offsets[i + 1] - d.base; ++e)
      add(d.columns[e] - d.base, d.values != nullptr ? *beta * d.values[e] : T(0));
  }
  std::sort(columns.begin(), columns.end());
  for (int col : columns) seen[col] = 0;
}

template <typename T>
inline musparseStatus_t csrgemm2(musparseHandle_t handle, int m, int n, int k, const T* alpha,
                                 const musparseMatDescr_t descrA, int nnzA, const T* valA, const int* rowA,
                                 const int* colA, const musparseMatDescr_t descrB, int nnzB, const T* valB,
                                 const int* rowB, const int* colB, const T* beta, const musparseMatDescr_t descrD,
                                 int nnzD, const T* valD, const int* rowD, const int* colD,
                                 const musparseMatDescr_t descrC, T* valC, int* rowC, int* colC,
                                 int* nnzTotal) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0 || nnzA < 0 || nnzB < 0 || nnzD < 0 || rowC == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  const CsrView<T> a{rowA, colA, valA, csr_base(descrA)};
  const CsrView<T> b{rowB, colB, valB, csr_base(descrB)};
  const CsrView<T> d{rowD, colD, valD, csr_base(descrD)};
  if (alpha != nullptr && (rowA == nullptr || rowB == nullptr)) return MUSPARSE_STATUS_INVALID_VALUE;
  const int base = csr_base(descrC);
  std::vector<T> dense(static_cast<size_t>(n));
  std::vector<char> seen(static_cast<size_t>(n), 0);
  std::vector<int> columns;
  int written = 0;
  for (int i = 0; i < m; ++i) {
    csrgemm2_row(i, alpha, a, b, beta, d, dense, seen, columns);
    if (nnzTotal != nullptr) {  // the structure step: row offsets only
      rowC[i] = written + base;
    } else {  // the value step: the offsets the structure step wrote say where the row goes
      written = rowC[i] - base;
    }
    for (int col : columns) {
      if (nnzTotal == nullptr) {
        colC[written] = col + base;
        valC[written] = dense[col];
      }
      ++written;
    }
  }
  if (nnzTotal != nullptr) {
    rowC[m] = written + base;
    *nnzTotal = written;
  }
  return MUSPARSE_STATUS_SUCCESS;
}

// The buffer-size step records in the info which of alpha and beta the product has, as the toolkit's does:
// the structure step is not told again.
enum : int { kInfoSized = 1, kInfoAlpha = 2, kInfoBeta = 4 };

inline musparseStatus_t csrgemm2_buffer(musparseHandle_t handle, const void* alpha, const void* beta,
                                        csrgemm2Info_t info, size_t* bytes) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (info == nullptr || bytes == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  info->state = kInfoSized | (alpha != nullptr ? kInfoAlpha : 0) | (beta != nullptr ? kInfoBeta : 0);
  *bytes = 0;  // the product rows are gathered in vectors of the call's own
  return MUSPARSE_STATUS_SUCCESS;
}

}  // namespace musaport_sparse

// The typed entry points, float (S) and double (D): the buffer size and the value step.
#define MUSAPORT_SPARSE_CSRGEMM2(fn, T)                                                                         \
  inline musparseStatus_t fn##_bufferSizeExt(                                                                 \
      musparseHandle_t handle, int, int, int, const T* alpha, const musparseMatDescr_t, int, const int*,       \
      const int*, const musparseMatDescr_t, int, const int*, const int*, const T* beta, const musparseMatDescr_t, \
      int, const int*, const int*, csrgemm2Info_t info, size_t* pBufferSizeInBytes) {                          \
    return musaport_sparse::csrgemm2_buffer(handle, alpha, beta, info, pBufferSizeInBytes);                   \
  }                                                                                                           \
  inline musparseStatus_t fn(                                                                                 \
      musparseHandle_t handle, int m, int n, int k, const T* alpha, const musparseMatDescr_t descrA, int nnzA,  \
      const T* csrValA, const int* csrRowPtrA, const int* csrColIndA, const musparseMatDescr_t descrB, int nnzB, \
      const T* csrValB, const int* csrRowPtrB, const int* csrColIndB, const T* beta,                           \
      const musparseMatDescr_t descrD, int nnzD, const T* csrValD, const int* csrRowPtrD, const int* csrColIndD, \
      const musparseMatDescr_t descrC, T* csrValC, const int* csrRowPtrC, int* csrColIndC, const csrgemm2Info_t, \
      void*) {                                                                                                \
    return musaport_sparse::csrgemm2<T>(handle, m, n, k, alpha, descrA, nnzA, csrValA, csrRowPtrA, csrColIndA, \
                                        descrB, nnzB, csrValB, csrRowPtrB, csrColIndB, beta, descrD, nnzD,     \
                                        csrValD, csrRowPtrD, csrColIndD, descrC, csrValC,                     \
                                        const_cast<int*>(csrRowPtrC), csrColIndC, nullptr);                   \
  }
MUSAPORT_SPARSE_CSRGEMM2(musparseScsrgemm2, float)
MUSAPORT_SPARSE_CSRGEMM2(musparseDcsrgemm2, double)
#undef MUSAPORT_SPARSE_CSRGEMM2

// The structure step: of A * B and D, those the buffer-size step was given an alpha and a beta for.
inline musparseStatus_t musparseXcsrgemm2Nnz(
    musparseHandle_t handle, int m, int n, int k,
    const musparseMatDescr_t descrA, int nnzA, const int* csrRowPtrA, const int* csrColIndA,
    const musparseMatDescr_t descrB, int nnzB, const int* csrRowPtrB, const int* csrColIndB,
    const musparseMatDescr_t descrD, int nnzD, const int* csrRowPtrD, const int* csrColIndD,
    const musparseMatDescr_t descrC, int* csrRowPtrC, int* nnzTotalDevHostPtr,
    const csrgemm2Info_t info, void*) {
  if (info == nullptr || nnzTotalDevHostPtr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  if (!(info->state & musaport_sparse::kInfoSized)) return MUSPARSE_STATUS_INVALID_VALUE;
  const double one = 1.0;
  const bool with_ab = info->state & musaport_sparse::kInfoAlpha;
  const bool with_d = (info->state & musaport_sparse::kInfoBeta) && nnzD > 0;
  return musaport_sparse::csrgemm2<double>(handle, m, n, k, with_ab ? &one : nullptr, descrA, nnzA, nullptr,
                                           csrRowPtrA, csrColIndA, descrB, nnzB, nullptr, csrRowPtrB, csrColIndB,
                                           with_d ? &one : nullptr, descrD, nnzD, nullptr, csrRowPtrD, csrColIndD,
                                           descrC, nullptr, csrRowPtrC, nullptr, nnzTotalDevHostPtr);
}
