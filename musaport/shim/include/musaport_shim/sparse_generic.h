// musaport shim: muSPARSE's generic API on the CPU (included by musparse.h):
// the sparse and dense matrix descriptors and SpMM.
//
// A sparse descriptor (COO or CSR) and a dense one (column- or row-major)
// only record their arrays, their strided batch and (sparse) the fill mode
// and diagonal type the triangular solves read; SpMM walks the nonzeros in
// storage order and adds each one's contribution, so its result is
// deterministic, as the toolkit's deterministic algorithms promise (COO_ALG2,
// CSR_ALG3).  Values may be float, double or their complex types, computed in
// the values' own type; the toolkit's mixed-precision combinations answer
// MUSPARSE_STATUS_NOT_SUPPORTED.  The functions take the toolkit's (12.0)
// const descriptors where it does (`musparseConstSpMatDescr_t`...).
#pragma once

#include <complex>

typedef enum { MUSPARSE_FORMAT_CSR = 1, MUSPARSE_FORMAT_CSC = 2, MUSPARSE_FORMAT_COO = 3 } musparseFormat_t;
typedef enum { MUSPARSE_SPMAT_FILL_MODE = 0, MUSPARSE_SPMAT_DIAG_TYPE = 1 } musparseSpMatAttribute_t;

struct musparseSpMatDescr {
  musparseFormat_t format;
  int64_t rows, cols, nnz;
  void* rows_or_offsets;  // COO: row indices; CSR: row offsets (rows + 1 of them)
  void* columns;
  void* values;
  musparseIndexType_t row_type, column_type;
  musparseIndexBase_t base;
  musaDataType value_type;
  // CSR strided batch (musparseCsrSetStridedBatch), in elements; a zero stride shares one matrix.
  int batch_count = 1;
  int64_t offsets_batch_stride = 0, values_batch_stride = 0;
  musparseFillMode_t fill_mode = MUSPARSE_FILL_MODE_LOWER;  // musparseSpMatSetAttribute
  musparseDiagType_t diag_type = MUSPARSE_DIAG_TYPE_NON_UNIT;
};
struct musparseDnMatDescr {
  int64_t rows, cols, ld;
  void* values;
  musaDataType value_type;
  musparseOrder_t order;
  int batch_count = 1;  // musparseDnMatSetStridedBatch, the stride in elements
  int64_t batch_stride = 0;
};
typedef struct musparseSpMatDescr* musparseSpMatDescr_t;
typedef struct musparseDnMatDescr* musparseDnMatDescr_t;
typedef const struct musparseSpMatDescr* musparseConstSpMatDescr_t;
typedef const struct musparseDnMatDescr* musparseConstDnMatDescr_t;

namespace musaport_sparse {

inline bool known_index(musparseIndexType_t t) {
  return t == MUSPARSE_INDEX_16U || t == MUSPARSE_INDEX_32I || t == MUSPARSE_INDEX_64I;
}

// Entry i of an index array of type t, as stored.
inline int64_t index_at(const void* array, musparseIndexType_t t, int64_t i) {
  switch (t) {
    case MUSPARSE_INDEX_16U: return static_cast<const uint16_t*>(array)[i];
    case MUSPARSE_INDEX_32I: return static_cast<const int32_t*>(array)[i];
    default: return static_cast<const int64_t*>(array)[i];
  }
}

inline size_t index_size(musparseIndexType_t t) {
  return t == MUSPARSE_INDEX_16U ? 2 : t == MUSPARSE_INDEX_32I ? 4 : 8;
}

// Stores v as entry i of an index array of type t.
inline void index_set(void* array, musparseIndexType_t t, int64_t i, int64_t v) {
  switch (t) {
    case MUSPARSE_INDEX_16U: static_cast<uint16_t*>(array)[i] = static_cast<uint16_t>(v); break;
    case MUSPARSE_INDEX_32I: static_cast<int32_t*>(array)[i] = static_cast<int32_t>(v); break;
    default: static_cast<int64_t*>(array)[i] = v; break;
  }
}

// The bytes of one value of type t (0: a type the shim does not compute).
inline size_t value_size(musaDataType t) {
  switch (t) {
    case MUSA_R_16F: case MUSA_R_16BF: return 2;
    case MUSA_R_32F: return 4;
    case MUSA_R_64F: case MUSA_C_32F: return 8;
    case MUSA_C_64F: return 16;
    default: return 0;
  }
}

// Calls f with a value of the C++ type that computes musaDataType t (float, double, std::complex of
// either); any other type is MUSPARSE_STATUS_NOT_SUPPORTED.
template <typename F> inline musparseStatus_t by_value_type(musaDataType t, F&& f) {
  switch (t) {
    case MUSA_R_32F: return f(float(0));
    case MUSA_R_64F: return f(double(0));
    case MUSA_C_32F: return f(std::complex<float>(0));
    case MUSA_C_64F: return f(std::complex<double>(0));
    default: return MUSPARSE_STATUS_NOT_SUPPORTED;
  }
}

template <typename T> inline T conj_of(T v) { return v; }
template <typename T> inline std::complex<T> conj_of(std::complex<T> v) { return std::conj(v); }

// Element (i, j) of a dense matrix as its descriptor lays it out.
template <typename T> inline T& dense_at(const musparseDnMatDescr& m, int64_t i, int64_t j) {
  T* v = static_cast<T*>(m.values);
  return m.order == MUSPARSE_ORDER_COL ? v[i + j * m.ld] : v[i * m.ld + j];
}

// Element (i, j) of op(M), op(M) read through M's descriptor.
template <typename T> inline T dense_op_at(const musparseDnMatDescr& m, musparseOperation_t op, int64_t i, int64_t j) {
  if (op == MUSPARSE_OPERATION_NON_TRANSPOSE) return dense_at<T>(m, i, j);
  return op == MUSPARSE_OPERATION_TRANSPOSE ? dense_at<T>(m, j, i) : conj_of(dense_at<T>(m, j, i));
}

// Batch b of a strided batch: the same descriptor with its arrays moved on by b strides.
inline musparseDnMatDescr dense_batch(const musparseDnMatDescr& m, int64_t b) {
  musparseDnMatDescr out = m;
  out.values = static_cast<char*>(m.values) + b * m.batch_stride * static_cast<int64_t>(value_size(m.value_type));
  out.batch_count = 1;
  return out;
}
inline musparseSpMatDescr sparse_batch(const musparseSpMatDescr& a, int64_t b) {
  musparseSpMatDescr out = a;
  out.rows_or_offsets = static_cast<char*>(a.rows_or_offsets) +
                        b * a.offsets_batch_stride * static_cast<int64_t>(index_size(a.row_type));
  out.columns =
      static_cast<char*>(a.columns) + b * a.values_batch_stride * static_cast<int64_t>(index_size(a.column_type));
  out.values =
      static_cast<char*>(a.values) + b * a.values_batch_stride * static_cast<int64_t>(value_size(a.value_type));
  out.batch_count = 1;
  return out;
}

// How many batches a product over operands of batch counts x and y writes into an output of batch count
// out: each operand has the output's count or one matrix (shared by every batch); -1 when neither.
inline int64_t batch_of(int64_t out, int64_t x, int64_t y) {
  return (x == out || x == 1) && (y == out || y == 1) ? out : -1;
}

// The shape of op(M) for a matrix of rows x cols.
inline void op_shape(musparseOperation_t op, int64_t rows, int64_t cols, int64_t* r, int64_t* c) {
  *r = op == MUSPARSE_OPERATION_NON_TRANSPOSE ? rows : cols;
  *c = op == MUSPARSE_OPERATION_NON_TRANSPOSE ? cols : rows;
}

// Calls f(row, column, position of the value) for every stored nonzero, indices made zero-based.
template <typename F> inline void for_each_nonzero(const musparseSpMatDescr& a, F f) {
  const int64_t base = a.base == MUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  if (a.format == MUSPARSE_FORMAT_COO) {
    for (int64_t e = 0; e < a.nnz; ++e)
      f(index_at(a.rows_or_offsets, a.row_type, e) - base, index_at(a.columns, a.column_type, e) - base, e);
    return;
  }
  for (int64_t r = 0; r < a.rows; ++r) {
    const int64_t end = index_at(a.rows_or_offsets, a.row_type, r + 1) - base;
    for (int64_t e = index_at(a.rows_or_offsets, a.row_type, r) - base; e < end; ++e)
      f(r, index_at(a.columns, a.column_type, e) - base, e);
  }
}

// C = alpha * op(A) * op(B) + beta * C in the values' type T; a zero beta clears C first (NaNs included).
template <typename T>
inline musparseStatus_t spmm(musparseOperation_t op_a, musparseOperation_t op_b, const void* alpha,
                             const musparseSpMatDescr& a, const musparseDnMatDescr& b, const void* beta,
                             const musparseDnMatDescr& c) {
  int64_t ar, ac, br, bc;
  op_shape(op_a, a.rows, a.cols, &ar, &ac);
  op_shape(op_b, b.rows, b.cols, &br, &bc);
  if (ar != c.rows || ac != br || bc != c.cols) return MUSPARSE_STATUS_INVALID_VALUE;
  const T al = *static_cast<const T*>(alpha), be = *static_cast<const T*>(beta);
  for (int64_t j = 0; j < c.cols; ++j)
    for (int64_t i = 0; i < c.rows; ++i) {
      T& out = dense_at<T>(c, i, j);
      out = be == T(0) ? T(0) : be * out;
    }
  const T* values = static_cast<const T*>(a.values);
  for_each_nonzero(a, [&](int64_t r, int64_t col, int64_t e) {
    const T v = al * (op_a == MUSPARSE_OPERATION_CONJUGATE_TRANSPOSE ? conj_of(values[e]) : values[e]);
    const int64_t i = op_a == MUSPARSE_OPERATION_NON_TRANSPOSE ? r : col;
    const int64_t p = op_a == MUSPARSE_OPERATION_NON_TRANSPOSE ? col : r;
    for (int64_t j = 0; j < c.cols; ++j) dense_at<T>(c, i, j) += v * dense_op_at<T>(b, op_b, p, j);
  });
  return MUSPARSE_STATUS_SUCCESS;
}

inline musparseStatus_t create_sparse(musparseSpMatDescr_t* out, const musparseSpMatDescr& d) {
  if (out == nullptr || d.rows < 0 || d.cols < 0 || d.nnz < 0) return MUSPARSE_STATUS_INVALID_VALUE;
  if (!known_index(d.row_type) || !known_index(d.column_type)) return MUSPARSE_STATUS_INVALID_VALUE;
  *out = new musparseSpMatDescr(d);
  return MUSPARSE_STATUS_SUCCESS;
}

}  // namespace musaport_sparse

inline musparseStatus_t musparseCreateCoo(musparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                          void* cooRowInd, void* cooColInd, void* cooValues,
                                          musparseIndexType_t cooIdxType, musparseIndexBase_t idxBase,
                                          musaDataType valueType) {
  return musaport_sparse::create_sparse(spMatDescr, {MUSPARSE_FORMAT_COO, rows, cols, nnz, cooRowInd, cooColInd,
                                                     cooValues, cooIdxType, cooIdxType, idxBase, valueType});
}
inline musparseStatus_t musparseCreateCsr(musparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                          void* csrRowOffsets, void* csrColInd, void* csrValues,
                                          musparseIndexType_t csrRowOffsetsType, musparseIndexType_t csrColIndType,
                                          musparseIndexBase_t idxBase, musaDataType valueType) {
  return musaport_sparse::create_sparse(spMatDescr, {MUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd,
                                                     csrValues, csrRowOffsetsType, csrColIndType, idxBase,
                                                     valueType});
}
inline musparseStatus_t musparseDestroySpMat(musparseConstSpMatDescr_t spMatDescr) {
  delete spMatDescr;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpMatGetSize(musparseConstSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols,
                                             int64_t* nnz) {
  if (spMatDescr == nullptr || rows == nullptr || cols == nullptr || nnz == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  *rows = spMatDescr->rows, *cols = spMatDescr->cols, *nnz = spMatDescr->nnz;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpMatGetValues(musparseSpMatDescr_t spMatDescr, void** values) {
  if (spMatDescr == nullptr || values == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *values = spMatDescr->values;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseSpMatSetValues(musparseSpMatDescr_t spMatDescr, void* values) {
  if (spMatDescr == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->values = values;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseCsrSetPointers(musparseSpMatDescr_t spMatDescr, void* csrRowOffsets, void* csrColInd,
                                               void* csrValues) {
  if (spMatDescr == nullptr || spMatDescr->format != MUSPARSE_FORMAT_CSR) return MUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->rows_or_offsets = csrRowOffsets, spMatDescr->columns = csrColInd, spMatDescr->values = csrValues;
  return MUSPARSE_STATUS_SUCCESS;
}
// Batch i of a CSR matrix starts offsetsBatchStride row offsets and columnsValuesBatchStride columns and
// values after batch i - 1 (0: every batch reads the same matrix).
inline musparseStatus_t musparseCsrSetStridedBatch(musparseSpMatDescr_t spMatDescr, int batchCount,
                                                   int64_t offsetsBatchStride, int64_t columnsValuesBatchStride) {
  if (spMatDescr == nullptr || spMatDescr->format != MUSPARSE_FORMAT_CSR || batchCount < 1 ||
      offsetsBatchStride < 0 || columnsValuesBatchStride < 0)
    return MUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->batch_count = batchCount;
  spMatDescr->offsets_batch_stride = offsetsBatchStride;
  spMatDescr->values_batch_stride = columnsValuesBatchStride;
  return MUSPARSE_STATUS_SUCCESS;
}
// The fill mode and diagonal type SpSV and SpSM read (data points at a musparseFillMode_t or musparseDiagType_t).
inline musparseStatus_t musparseSpMatSetAttribute(musparseSpMatDescr_t spMatDescr, musparseSpMatAttribute_t attribute,
                                                  void* data, size_t dataSize) {
  if (spMatDescr == nullptr || data == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  if (attribute == MUSPARSE_SPMAT_FILL_MODE && dataSize == sizeof(musparseFillMode_t)) {
    const musparseFillMode_t mode = *static_cast<const musparseFillMode_t*>(data);
    if (mode != MUSPARSE_FILL_MODE_LOWER && mode != MUSPARSE_FILL_MODE_UPPER) return MUSPARSE_STATUS_INVALID_VALUE;
    spMatDescr->fill_mode = mode;
    return MUSPARSE_STATUS_SUCCESS;
  }
  if (attribute == MUSPARSE_SPMAT_DIAG_TYPE && dataSize == sizeof(musparseDiagType_t)) {
    const musparseDiagType_t diag = *static_cast<const musparseDiagType_t*>(data);
    if (diag != MUSPARSE_DIAG_TYPE_NON_UNIT && diag != MUSPARSE_DIAG_TYPE_UNIT) return MUSPARSE_STATUS_INVALID_VALUE;
    spMatDescr->diag_type = diag;
    return MUSPARSE_STATUS_SUCCESS;
  }
  return MUSPARSE_STATUS_INVALID_VALUE;
}
inline musparseStatus_t musparseCreateDnMat(musparseDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                            void* values, musaDataType valueType, musparseOrder_t order) {
  if (dnMatDescr == nullptr || rows < 0 || cols < 0) return MUSPARSE_STATUS_INVALID_VALUE;
  if (ld < (order == MUSPARSE_ORDER_COL ? rows : cols) || ld < 1) return MUSPARSE_STATUS_INVALID_VALUE;
  *dnMatDescr = new musparseDnMatDescr{rows, cols, ld, values, valueType, order};
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDestroyDnMat(musparseConstDnMatDescr_t dnMatDescr) {
  delete dnMatDescr;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDnMatSetStridedBatch(musparseDnMatDescr_t dnMatDescr, int batchCount,
                                                     int64_t batchStride) {
  if (dnMatDescr == nullptr || batchCount < 1 || batchStride < 0) return MUSPARSE_STATUS_INVALID_VALUE;
  dnMatDescr->batch_count = batchCount;
  dnMatDescr->batch_stride = batchStride;
  return MUSPARSE_STATUS_SUCCESS;
}
inline musparseStatus_t musparseDnMatGetValues(musparseDnMatDescr_t dnMatDescr, void** values) {
  if (dnMatDescr == nullptr || values == nullptr) return MUSPARSE_STATUS_INVALID_VALUE;
  *values = dnMatDescr->values;
  return MUSPARSE_STATUS_SUCCESS;
}

// SpMM needs no workspace here: the product is accumulated into C in place.
inline musparseStatus_t musparseSpMM_bufferSize(musparseHandle_t handle, musparseOperation_t, musparseOperation_t,
                                                const void*, musparseConstSpMatDescr_t matA,
                                                musparseConstDnMatDescr_t matB,
                                                const void*, musparseDnMatDescr_t matC, musaDataType,
                                                musparseSpMMAlg_t, size_t* bufferSize) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (matA == nullptr || matB == nullptr || matC == nullptr || bufferSize == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = 0;
  return MUSPARSE_STATUS_SUCCESS;
}
// A strided batch computes C_i = alpha * op(A_i) * op(B_i) + beta * C_i, i < C's batch count; A or B may be
// one matrix for every batch.
inline musparseStatus_t musparseSpMM(musparseHandle_t handle, musparseOperation_t opA, musparseOperation_t opB,
                                     const void* alpha, musparseConstSpMatDescr_t matA, musparseConstDnMatDescr_t matB,
                                     const void* beta, musparseDnMatDescr_t matC, musaDataType computeType,
                                     musparseSpMMAlg_t, void*) {
  if (handle == nullptr) return MUSPARSE_STATUS_NOT_INITIALIZED;
  if (matA == nullptr || matB == nullptr || matC == nullptr || alpha == nullptr || beta == nullptr)
    return MUSPARSE_STATUS_INVALID_VALUE;
  if (matA->value_type != computeType || matB->value_type != computeType || matC->value_type != computeType)
    return MUSPARSE_STATUS_NOT_SUPPORTED;
  const int64_t batches = musaport_sparse::batch_of(matC->batch_count, matA->batch_count, matB->batch_count);
  if (batches < 0) return MUSPARSE_STATUS_INVALID_VALUE;
  return musaport_sparse::by_value_type(computeType, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < batches; ++i) {
      const musparseStatus_t status = musaport_sparse::spmm<T>(
          opA, opB, alpha, musaport_sparse::sparse_batch(*matA, matA->batch_count == 1 ? 0 : i),
          musaport_sparse::dense_batch(*matB, matB->batch_count == 1 ? 0 : i), beta,
          musaport_sparse::dense_batch(*matC, i));
      if (status != MUSPARSE_STATUS_SUCCESS) return status;
    }
    return MUSPARSE_STATUS_SUCCESS;
  });
}
