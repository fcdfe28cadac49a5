// musaport shim: <cub/util_type.cuh>: NullType, KeyValuePair, Uninitialized,
// the collectives' storage, Log2/PowerOfTwo, Traits/NumericTraits, DoubleBuffer,
// FutureValue (see cub/cub.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cub/config.cuh>
#include <musa_bf16.h>
#include <musa_fp16.h>

CUB_NS_PREFIX
namespace cub {

// ------------------------------------------------------------ basic types
struct NullType {};

template <typename Key, typename Value>
struct KeyValuePair {
  using first_type = Key;
  using second_type = Value;
  Key key;
  Value value;
  MUSAPORT_HD KeyValuePair() : key(), value() {}
  MUSAPORT_HD KeyValuePair(const Key& k, const Value& v) : key(k), value(v) {}
};

template <typename T>
struct Uninitialized {
  alignas(T) unsigned char storage[sizeof(T)];
  MUSAPORT_HD T& Alias() { return reinterpret_cast<T&>(*this); }
};

// Storage of a collective: `__shared__ typename X::TempStorage s;` (also in
// unions), never initialised.
template <std::size_t Bytes>
struct TempStorageBytes {
  alignas(16) unsigned char storage[Bytes > 0 ? Bytes : 1];
};

// ------------------------------------------------------------ compile-time integer helpers
// Log2<N>::VALUE is ceil(log2(N)) for N >= 1 (Log2<1> is 0, Log2<5> is 3); PowerOfTwo<N>::VALUE says
// whether N is one.
namespace musaport_detail {
constexpr int ceil_log2(int n) { return n <= 1 ? 0 : 1 + ceil_log2((n + 1) / 2); }
}  // namespace musaport_detail
template <int N, int CURRENT_VAL = N, int COUNT = 0>
struct Log2 {
  static_assert(N >= 1, "cub::Log2 needs N >= 1");
  enum { VALUE = musaport_detail::ceil_log2(N) };
};
template <int N>
struct PowerOfTwo {
  enum { VALUE = N > 0 && (N & (N - 1)) == 0 };
};

// ------------------------------------------------------------ traits
enum Category { NOT_A_NUMBER, SIGNED_INTEGER, UNSIGNED_INTEGER, FLOATING_POINT };

template <std::size_t Bytes>
struct UnsignedOfSize;
template <>
struct UnsignedOfSize<1> { using type = std::uint8_t; };
template <>
struct UnsignedOfSize<2> { using type = std::uint16_t; };
template <>
struct UnsignedOfSize<4> { using type = std::uint32_t; };
template <>
struct UnsignedOfSize<8> { using type = std::uint64_t; };

template <Category CATEGORY, bool PRIMITIVE, bool NULL_TYPE, typename UnsignedBitsT, typename T>
struct BaseTraits {
  static constexpr Category CATEGORY_VALUE = CATEGORY;
  enum { PRIMITIVE_VALUE = PRIMITIVE, NULL_TYPE_VALUE = NULL_TYPE };
};

template <typename UnsignedBitsT, typename T>
struct BaseTraits<UNSIGNED_INTEGER, true, false, UnsignedBitsT, T> {
  using UnsignedBits = UnsignedBitsT;
  static constexpr Category CATEGORY_VALUE = UNSIGNED_INTEGER;
  static constexpr UnsignedBits LOWEST_KEY = UnsignedBits(0);
  static constexpr UnsignedBits MAX_KEY = UnsignedBits(-1);
  enum { PRIMITIVE = true, NULL_TYPE = false };
  MUSAPORT_HD static UnsignedBits TwiddleIn(UnsignedBits key) { return key; }
  MUSAPORT_HD static UnsignedBits TwiddleOut(UnsignedBits key) { return key; }
  MUSAPORT_HD static T Max() { return std::numeric_limits<T>::max(); }
  MUSAPORT_HD static T Lowest() { return std::numeric_limits<T>::lowest(); }
};

template <typename UnsignedBitsT, typename T>
struct BaseTraits<SIGNED_INTEGER, true, false, UnsignedBitsT, T> {
  using UnsignedBits = UnsignedBitsT;
  static constexpr Category CATEGORY_VALUE = SIGNED_INTEGER;
  static constexpr UnsignedBits HIGH_BIT = UnsignedBits(1) << (sizeof(UnsignedBits) * 8 - 1);
  static constexpr UnsignedBits LOWEST_KEY = HIGH_BIT;
  static constexpr UnsignedBits MAX_KEY = UnsignedBits(-1) ^ HIGH_BIT;
  enum { PRIMITIVE = true, NULL_TYPE = false };
  MUSAPORT_HD static UnsignedBits TwiddleIn(UnsignedBits key) { return key ^ HIGH_BIT; }
  MUSAPORT_HD static UnsignedBits TwiddleOut(UnsignedBits key) { return key ^ HIGH_BIT; }
  MUSAPORT_HD static T Max() { return std::numeric_limits<T>::max(); }
  MUSAPORT_HD static T Lowest() { return std::numeric_limits<T>::lowest(); }
};

template <typename T>
struct FpLimits;
template <>
struct FpLimits<float> {
  MUSAPORT_HD static float Max() { return 3.40282347e+38f; }
  MUSAPORT_HD static float Lowest() { return -3.40282347e+38f; }
};
template <>
struct FpLimits<double> {
  MUSAPORT_HD static double Max() { return 1.7976931348623157e+308; }
  MUSAPORT_HD static double Lowest() { return -1.7976931348623157e+308; }
};
template <>
struct FpLimits<__half> {
  MUSAPORT_HD static __half Max() { return __ushort_as_half(0x7bff); }
  MUSAPORT_HD static __half Lowest() { return __ushort_as_half(0xfbff); }
};
template <>
struct FpLimits<__mt_bfloat16> {
  MUSAPORT_HD static __mt_bfloat16 Max() { return __ushort_as_bfloat16(0x7f7f); }
  MUSAPORT_HD static __mt_bfloat16 Lowest() { return __ushort_as_bfloat16(0xff7f); }
};

template <typename UnsignedBitsT, typename T>
struct BaseTraits<FLOATING_POINT, true, false, UnsignedBitsT, T> {
  using UnsignedBits = UnsignedBitsT;
  static constexpr Category CATEGORY_VALUE = FLOATING_POINT;
  static constexpr UnsignedBits HIGH_BIT = UnsignedBits(1) << (sizeof(UnsignedBits) * 8 - 1);
  static constexpr UnsignedBits LOWEST_KEY = UnsignedBits(-1);
  static constexpr UnsignedBits MAX_KEY = UnsignedBits(-1) ^ HIGH_BIT;
  enum { PRIMITIVE = true, NULL_TYPE = false };
  MUSAPORT_HD static UnsignedBits TwiddleIn(UnsignedBits key) {
    UnsignedBits mask = (key & HIGH_BIT) ? UnsignedBits(-1) : HIGH_BIT;
    return key ^ mask;
  }
  MUSAPORT_HD static UnsignedBits TwiddleOut(UnsignedBits key) {
    UnsignedBits mask = (key & HIGH_BIT) ? HIGH_BIT : UnsignedBits(-1);
    return key ^ mask;
  }
  MUSAPORT_HD static T Max() { return FpLimits<T>::Max(); }
  MUSAPORT_HD static T Lowest() { return FpLimits<T>::Lowest(); }
};

template <typename T>
struct NumericTraits : BaseTraits<NOT_A_NUMBER, false, false, T, T> {};
template <>
struct NumericTraits<NullType> : BaseTraits<NOT_A_NUMBER, false, true, NullType, NullType> {};

#define MUSAPORT_CUB_TRAITS(T_, category) \
  template <>                             \
  struct NumericTraits<T_> : BaseTraits<category, true, false, typename UnsignedOfSize<sizeof(T_)>::type, T_> {};
MUSAPORT_CUB_TRAITS(char, (std::numeric_limits<char>::is_signed ? SIGNED_INTEGER : UNSIGNED_INTEGER))
MUSAPORT_CUB_TRAITS(signed char, SIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(short, SIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(int, SIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(long, SIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(long long, SIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(unsigned char, UNSIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(unsigned short, UNSIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(unsigned int, UNSIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(unsigned long, UNSIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(unsigned long long, UNSIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(bool, UNSIGNED_INTEGER)
MUSAPORT_CUB_TRAITS(float, FLOATING_POINT)
MUSAPORT_CUB_TRAITS(double, FLOATING_POINT)
MUSAPORT_CUB_TRAITS(__half, FLOATING_POINT)
MUSAPORT_CUB_TRAITS(__mt_bfloat16, FLOATING_POINT)
#undef MUSAPORT_CUB_TRAITS

template <typename T>
struct Traits : NumericTraits<std::remove_cv_t<T>> {};

template <typename T>
struct DoubleBuffer {
  T* d_buffers[2];
  int selector;
  MUSAPORT_HD DoubleBuffer() : d_buffers{nullptr, nullptr}, selector(0) {}
  MUSAPORT_HD DoubleBuffer(T* current, T* alternate) : d_buffers{current, alternate}, selector(0) {}
  MUSAPORT_HD T* Current() { return d_buffers[selector]; }
  MUSAPORT_HD T* Alternate() { return d_buffers[selector ^ 1]; }
};

// An initial value read from device memory when the algorithm runs.
template <typename T, typename IterT = T*>
struct FutureValue {
  using value_type = T;
  using iterator_type = IterT;
  MUSAPORT_HD explicit FutureValue(IterT iter) : iter_(iter) {}
  MUSAPORT_HD operator T() { return *iter_; }

 private:
  IterT iter_;
};

// ------------------------------------------------------------ the shim's radix order
namespace musaport_detail {
// A radix sort's order, for the shim's sorts (which compare instead of counting digits): the key's bits
// from begin_bit to end_bit, twiddled as cub does so that their unsigned order is the key order (floats:
// -0.0 before +0.0, NaN past infinity).
template <typename K>
struct RadixLess {
  int begin_bit, end_bit;
  bool descending;
  using Bits = typename Traits<K>::UnsignedBits;
  MUSAPORT_HD Bits digits(const K& key) const {
    Bits bits;
    __builtin_memcpy(&bits, &key, sizeof(K));
    bits = Traits<K>::TwiddleIn(bits);
    const int width = end_bit - begin_bit;
    const Bits mask = width >= int(sizeof(Bits) * 8) ? Bits(~Bits(0)) : Bits((Bits(1) << width) - 1);
    return Bits((bits >> begin_bit) & mask);
  }
  MUSAPORT_HD bool operator()(const K& a, const K& b) const {
    return descending ? digits(b) < digits(a) : digits(a) < digits(b);
  }
};
}  // namespace musaport_detail

}  // namespace cub
CUB_NS_POSTFIX
