// musaport shim: <library_types.h>, the data-type and library-property
// enums that the MUSA math libraries (muBLAS, muSPARSE, muFFT, ...) share.
#pragma once

typedef enum musaDataType_t {
  MUSA_R_32F = 0,
  MUSA_R_64F = 1,
  MUSA_R_16F = 2,
  MUSA_R_8I = 3,
  MUSA_C_32F = 4,
  MUSA_C_64F = 5,
  MUSA_C_16F = 6,
  MUSA_C_8I = 7,
  MUSA_R_8U = 8,
  MUSA_C_8U = 9,
  MUSA_R_32I = 10,
  MUSA_C_32I = 11,
  MUSA_R_32U = 12,
  MUSA_C_32U = 13,
  MUSA_R_16BF = 14,
  MUSA_C_16BF = 15,
  MUSA_R_4I = 16,
  MUSA_C_4I = 17,
  MUSA_R_4U = 18,
  MUSA_C_4U = 19,
  MUSA_R_16I = 20,
  MUSA_C_16I = 21,
  MUSA_R_16U = 22,
  MUSA_C_16U = 23,
  MUSA_R_64I = 24,
  MUSA_C_64I = 25,
  MUSA_R_64U = 26,
  MUSA_C_64U = 27,
  MUSA_R_8F_E4M3 = 28,
  MUSA_R_8F_E5M2 = 29
} musaDataType;

typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
