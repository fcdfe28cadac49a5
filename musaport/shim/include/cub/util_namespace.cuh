// musaport shim: <cub/util_namespace.cuh>.  Like cub, the namespace honours
// CUB_NS_PREFIX/CUB_NS_POSTFIX, which PyTorch's ATen/musa/cub.muh sets to
// wrap cub in `at_cuda_detail`.
#pragma once

#ifndef CUB_NS_PREFIX
#define CUB_NS_PREFIX
#endif
#ifndef CUB_NS_POSTFIX
#define CUB_NS_POSTFIX
#endif
#ifndef CUB_NS_QUALIFIER
#define CUB_NS_QUALIFIER ::cub
#endif
