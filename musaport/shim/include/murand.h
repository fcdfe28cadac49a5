// musaport shim: <murand.h>, murand's host API: status codes, generator
// types and the generator functions (declared; kernels use murand_kernel.h).
#pragma once

#include <stddef.h>

#include "musa_runtime_api.h"

typedef enum murandStatus {
  MURAND_STATUS_SUCCESS = 0,
  MURAND_STATUS_VERSION_MISMATCH = 100,
  MURAND_STATUS_NOT_INITIALIZED = 101,
  MURAND_STATUS_ALLOCATION_FAILED = 102,
  MURAND_STATUS_TYPE_ERROR = 103,
  MURAND_STATUS_OUT_OF_RANGE = 104,
  MURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
  MURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
  MURAND_STATUS_LAUNCH_FAILURE = 201,
  MURAND_STATUS_PREEXISTING_FAILURE = 202,
  MURAND_STATUS_INITIALIZATION_FAILED = 203,
  MURAND_STATUS_ARCH_MISMATCH = 204,
  MURAND_STATUS_INTERNAL_ERROR = 999
} murandStatus_t;

typedef enum murandRngType {
  MURAND_RNG_TEST = 0,
  MURAND_RNG_PSEUDO_DEFAULT = 100,
  MURAND_RNG_PSEUDO_XORWOW = 101,
  MURAND_RNG_PSEUDO_MRG32K3A = 121,
  MURAND_RNG_PSEUDO_MTGP32 = 141,
  MURAND_RNG_PSEUDO_MT19937 = 142,
  MURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
  MURAND_RNG_QUASI_DEFAULT = 200,
  MURAND_RNG_QUASI_SOBOL32 = 201
} murandRngType_t;

typedef struct murandGenerator_st* murandGenerator_t;

murandStatus_t murandCreateGenerator(murandGenerator_t* generator, murandRngType_t rng_type);
murandStatus_t murandDestroyGenerator(murandGenerator_t generator);
murandStatus_t murandSetStream(murandGenerator_t generator, musaStream_t stream);
murandStatus_t murandSetPseudoRandomGeneratorSeed(murandGenerator_t generator, unsigned long long seed);
murandStatus_t murandSetGeneratorOffset(murandGenerator_t generator, unsigned long long offset);
murandStatus_t murandGenerate(murandGenerator_t generator, unsigned int* output, size_t n);
murandStatus_t murandGenerateUniform(murandGenerator_t generator, float* output, size_t n);
murandStatus_t murandGenerateUniformDouble(murandGenerator_t generator, double* output, size_t n);
murandStatus_t murandGenerateNormal(murandGenerator_t generator, float* output, size_t n, float mean, float stddev);
murandStatus_t murandGenerateNormalDouble(murandGenerator_t generator, double* output, size_t n, double mean,
                                          double stddev);
