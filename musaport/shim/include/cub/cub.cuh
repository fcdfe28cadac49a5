// musaport shim: <cub/cub.cuh>, the part of cub's interface that ported
// PyTorch code uses, for syntax checks.
//
// Function objects, type traits and the input iterators are defined
// (__host__ __device__).  The device-wide algorithms (DeviceScan,
// DeviceRadixSort, ...) and the block- and warp-wide collectives (BlockLoad,
// BlockScan, WarpMergeSort, ...) are declarations with cub's signatures:
// enough for clang to check calls, not to run them.
//
// Like cub, the namespace honours CUB_NS_PREFIX/CUB_NS_POSTFIX, which
// PyTorch's ATen/musa/cub.muh sets to wrap cub in `at_cuda_detail`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <type_traits>

#include <cub/version.cuh>
#include <musa_bf16.h>
#include <musa_fp16.h>
#include <musa_runtime.h>
#include <musaport_shim/config.h>

#ifndef CUB_NS_PREFIX
#define CUB_NS_PREFIX
#endif
#ifndef CUB_NS_POSTFIX
#define CUB_NS_POSTFIX
#endif
#ifndef CUB_NS_QUALIFIER
#define CUB_NS_QUALIFIER ::cub
#endif

#define CUB_RUNTIME_FUNCTION MUSAPORT_HD
#define CUB_PTX_ARCH 700
#define CUB_MAX(a, b) (((b) > (a)) ? (b) : (a))
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))

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

// ------------------------------------------------------------ function objects
struct Equality {
  template <typename T, typename U>
  MUSAPORT_HD bool operator()(const T& a, const U& b) const { return a == b; }
};
struct Inequality {
  template <typename T, typename U>
  MUSAPORT_HD bool operator()(const T& a, const U& b) const { return a != b; }
};
struct Less {
  template <typename T>
  MUSAPORT_HD bool operator()(const T& a, const T& b) const { return a < b; }
};
struct Sum {
  template <typename T, typename U>
  MUSAPORT_HD auto operator()(const T& a, const U& b) const { return a + b; }
};
struct Difference {
  template <typename T, typename U>
  MUSAPORT_HD auto operator()(const T& a, const U& b) const { return a - b; }
};
struct Max {
  template <typename T>
  MUSAPORT_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
  template <typename T>
  MUSAPORT_HD T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct ArgMax {
  template <typename T, typename O>
  MUSAPORT_HD KeyValuePair<O, T> operator()(const KeyValuePair<O, T>& a, const KeyValuePair<O, T>& b) const {
    return (b.value > a.value || (b.value == a.value && b.key < a.key)) ? b : a;
  }
};
struct ArgMin {
  template <typename T, typename O>
  MUSAPORT_HD KeyValuePair<O, T> operator()(const KeyValuePair<O, T>& a, const KeyValuePair<O, T>& b) const {
    return (b.value < a.value || (b.value == a.value && b.key < a.key)) ? b : a;
  }
};
template <typename B>
struct CastOp {
  template <typename A>
  MUSAPORT_HD B operator()(const A& a) const { return static_cast<B>(a); }
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

// ------------------------------------------------------------ input iterators
template <typename ValueType, typename OffsetT = std::ptrdiff_t>
class CountingInputIterator {
 public:
  using self_type = CountingInputIterator;
  using difference_type = OffsetT;
  using value_type = ValueType;
  using pointer = ValueType*;
  using reference = ValueType;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD CountingInputIterator(const ValueType& val) : val_(val) {}
  MUSAPORT_HD reference operator*() const { return val_; }
  template <typename D>
  MUSAPORT_HD reference operator[](D n) const { return static_cast<ValueType>(val_ + static_cast<ValueType>(n)); }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++val_; return r; }
  MUSAPORT_HD self_type& operator++() { ++val_; return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(static_cast<ValueType>(val_ + static_cast<ValueType>(n))); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { val_ = static_cast<ValueType>(val_ + static_cast<ValueType>(n)); return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator-(D n) const { return self_type(static_cast<ValueType>(val_ - static_cast<ValueType>(n))); }
  MUSAPORT_HD difference_type operator-(self_type other) const { return difference_type(val_ - other.val_); }
  MUSAPORT_HD bool operator==(const self_type& o) const { return val_ == o.val_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return val_ != o.val_; }

 private:
  ValueType val_;
};

template <typename ValueType, typename OffsetT = std::ptrdiff_t>
class ConstantInputIterator {
 public:
  using self_type = ConstantInputIterator;
  using difference_type = OffsetT;
  using value_type = ValueType;
  using pointer = ValueType*;
  using reference = ValueType;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD ConstantInputIterator(ValueType val, OffsetT offset = 0) : val_(val), offset_(offset) {}
  MUSAPORT_HD reference operator*() const { return val_; }
  template <typename D>
  MUSAPORT_HD reference operator[](D) const { return val_; }
  MUSAPORT_HD self_type& operator++() { ++offset_; return *this; }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++offset_; return r; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(val_, offset_ + n); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { offset_ += n; return *this; }
  MUSAPORT_HD difference_type operator-(self_type other) const { return offset_ - other.offset_; }
  MUSAPORT_HD bool operator==(const self_type& o) const { return offset_ == o.offset_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return offset_ != o.offset_; }

 private:
  ValueType val_;
  OffsetT offset_;
};

template <typename ValueType, typename ConversionOp, typename InputIteratorT, typename OffsetT = std::ptrdiff_t>
class TransformInputIterator {
 public:
  using self_type = TransformInputIterator;
  using difference_type = OffsetT;
  using value_type = ValueType;
  using pointer = ValueType*;
  using reference = ValueType;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD TransformInputIterator(InputIteratorT input_itr, ConversionOp conversion_op)
      : conversion_op_(conversion_op), input_itr_(input_itr) {}
  MUSAPORT_HD reference operator*() const { return conversion_op_(*input_itr_); }
  template <typename D>
  MUSAPORT_HD reference operator[](D n) const { return conversion_op_(input_itr_[n]); }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++input_itr_; return r; }
  MUSAPORT_HD self_type& operator++() { ++input_itr_; return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(input_itr_ + n, conversion_op_); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { input_itr_ += n; return *this; }
  template <typename D>
  MUSAPORT_HD self_type operator-(D n) const { return self_type(input_itr_ - n, conversion_op_); }
  MUSAPORT_HD difference_type operator-(self_type other) const { return input_itr_ - other.input_itr_; }
  MUSAPORT_HD bool operator==(const self_type& o) const { return input_itr_ == o.input_itr_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return input_itr_ != o.input_itr_; }

 private:
  ConversionOp conversion_op_;
  InputIteratorT input_itr_;
};

template <typename InputIteratorT, typename OffsetT = std::ptrdiff_t,
          typename OutputValueT = typename std::iterator_traits<InputIteratorT>::value_type>
class ArgIndexInputIterator {
 public:
  using self_type = ArgIndexInputIterator;
  using difference_type = OffsetT;
  using value_type = KeyValuePair<difference_type, OutputValueT>;
  using pointer = value_type*;
  using reference = value_type;
  using iterator_category = std::random_access_iterator_tag;

  MUSAPORT_HD ArgIndexInputIterator(InputIteratorT itr, difference_type offset = 0) : itr_(itr), offset_(offset) {}
  MUSAPORT_HD reference operator*() const { return value_type(offset_, itr_[offset_]); }
  template <typename D>
  MUSAPORT_HD reference operator[](D n) const { return *(*this + n); }
  MUSAPORT_HD self_type& operator++() { ++offset_; return *this; }
  MUSAPORT_HD self_type operator++(int) { self_type r = *this; ++offset_; return r; }
  template <typename D>
  MUSAPORT_HD self_type operator+(D n) const { return self_type(itr_, offset_ + n); }
  template <typename D>
  MUSAPORT_HD self_type& operator+=(D n) { offset_ += n; return *this; }
  MUSAPORT_HD difference_type operator-(self_type other) const { return offset_ - other.offset_; }
  MUSAPORT_HD bool operator==(const self_type& o) const { return offset_ == o.offset_ && itr_ == o.itr_; }
  MUSAPORT_HD bool operator!=(const self_type& o) const { return !(*this == o); }
  MUSAPORT_HD void normalize() { itr_ += offset_; offset_ = 0; }

 private:
  InputIteratorT itr_;
  difference_type offset_;
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

// ------------------------------------------------------------ device-wide algorithms
// Sequential versions: a first call with d_temp_storage == nullptr asks for
// one byte; the second runs the algorithm once on the device (a one-thread
// kernel; a plain call on the CPU runtime).  Radix sorts compare whole keys
// and ignore begin_bit/end_bit.
namespace musaport_detail {
#if MUSAPORT_CLANG_CUDA
template <typename F>
__global__ void serial_kernel(F f) { f(); }
#endif

template <typename F>
inline musaError_t run_serial(void* d_temp_storage, std::size_t& temp_storage_bytes, musaStream_t stream, F f) {
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = 1;
    return musaSuccess;
  }
#if MUSAPORT_CLANG_CUDA
  serial_kernel<<<1, 1, 0, stream>>>(f);
#else
  (void)stream;
  f();
#endif
  return musaSuccess;
}

template <typename T>
MUSAPORT_HD T unwrap(const T& v) { return v; }
template <typename T, typename I>
MUSAPORT_HD T unwrap(FutureValue<T, I> v) { return static_cast<T>(v); }

template <typename It>
using value_t = typename std::iterator_traits<It>::value_type;
// cub's accumulator for Sum/Min/Max: the output's value type, or the input's
// when the output is an iterator without one (discard-like).
template <typename In, typename Out>
using acc_t = std::conditional_t<std::is_void<value_t<Out>>::value, value_t<In>, value_t<Out>>;

struct Greater {
  template <typename T>
  MUSAPORT_HD bool operator()(const T& a, const T& b) const { return b < a; }
};

template <typename In, typename Out, typename Op, typename Init>
MUSAPORT_HD void exclusive_scan(In in, Out out, Op op, Init init, long long n) {
  auto acc = init;
  for (long long i = 0; i < n; ++i) {
    auto next = op(acc, in[i]);
    out[i] = acc;
    acc = next;
  }
}

template <typename K, typename V, typename Comp>
MUSAPORT_HD void sort_pairs(const K* kin, K* kout, const V* vin, V* vout, long long n, Comp comp) {
  for (long long i = 0; i < n; ++i) {
    kout[i] = kin[i];
    if (vout) vout[i] = vin[i];
  }
  for (long long i = 1; i < n; ++i)
    for (long long j = i; j > 0 && comp(kout[j], kout[j - 1]); --j) {
      K k = kout[j];
      kout[j] = kout[j - 1];
      kout[j - 1] = k;
      if (vout) {
        V v = vout[j];
        vout[j] = vout[j - 1];
        vout[j - 1] = v;
      }
    }
}

template <typename Reduce, typename In, typename Out, typename Begin, typename End, typename Op, typename T>
MUSAPORT_HD void segmented_reduce(In in, Out out, int segments, Begin begin, End end, Op op, T init) {
  for (int s = 0; s < segments; ++s) {
    T acc = init;
    for (auto i = begin[s]; i < end[s]; ++i) acc = op(acc, in[i]);
    out[s] = acc;
  }
}
}  // namespace musaport_detail

struct DeviceScan {
  template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename NumItemsT>
  static musaError_t InclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                   OutputIteratorT d_out, ScanOpT scan_op, NumItemsT num_items,
                                   musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      if (num_items <= 0) return;
      musaport_detail::acc_t<InputIteratorT, OutputIteratorT> acc = d_in[0];
      d_out[0] = acc;
      for (NumItemsT i = 1; i < num_items; ++i) d_out[i] = acc = scan_op(acc, d_in[i]);
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t InclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                  OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    return InclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, Sum(), num_items, stream);
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename InitValueT,
            typename NumItemsT>
  static musaError_t ExclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                   OutputIteratorT d_out, ScanOpT scan_op, InitValueT init_value,
                                   NumItemsT num_items, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::exclusive_scan(d_in, d_out, scan_op, musaport_detail::unwrap(init_value), num_items);
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t ExclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                  OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<InputIteratorT, OutputIteratorT>;
    return ExclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, Sum(), T(0), num_items, stream);
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename ScanOpT, typename EqualityOpT = Equality, typename NumItemsT = std::uint32_t>
  static musaError_t InclusiveScanByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                        KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                        ValuesOutputIteratorT d_values_out, ScanOpT scan_op, NumItemsT num_items,
                                        EqualityOpT equality_op = EqualityOpT(), musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::acc_t<ValuesInputIteratorT, ValuesOutputIteratorT> acc{};
      for (NumItemsT i = 0; i < num_items; ++i) {
        acc = (i > 0 && equality_op(d_keys_in[i - 1], d_keys_in[i])) ? scan_op(acc, d_values_in[i])
                                                                       : decltype(acc)(d_values_in[i]);
        d_values_out[i] = acc;
      }
    });
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename EqualityOpT = Equality, typename NumItemsT = std::uint32_t>
  static musaError_t InclusiveSumByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                       KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                       ValuesOutputIteratorT d_values_out, NumItemsT num_items,
                                       EqualityOpT equality_op = EqualityOpT(), musaStream_t stream = 0) {
    return InclusiveScanByKey(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out, Sum(),
                              num_items, equality_op, stream);
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename ScanOpT, typename InitValueT, typename EqualityOpT = Equality,
            typename NumItemsT = std::uint32_t>
  static musaError_t ExclusiveScanByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                        KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                        ValuesOutputIteratorT d_values_out, ScanOpT scan_op, InitValueT init_value,
                                        NumItemsT num_items, EqualityOpT equality_op = EqualityOpT(),
                                        musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      auto init = musaport_detail::unwrap(init_value);
      auto acc = init;
      for (NumItemsT i = 0; i < num_items; ++i) {
        if (i == 0 || !equality_op(d_keys_in[i - 1], d_keys_in[i])) acc = init;
        auto next = scan_op(acc, d_values_in[i]);
        d_values_out[i] = acc;
        acc = next;
      }
    });
  }
  template <typename KeysInputIteratorT, typename ValuesInputIteratorT, typename ValuesOutputIteratorT,
            typename EqualityOpT = Equality, typename NumItemsT = std::uint32_t>
  static musaError_t ExclusiveSumByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                       KeysInputIteratorT d_keys_in, ValuesInputIteratorT d_values_in,
                                       ValuesOutputIteratorT d_values_out, NumItemsT num_items,
                                       EqualityOpT equality_op = EqualityOpT(), musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<ValuesInputIteratorT, ValuesOutputIteratorT>;
    return ExclusiveScanByKey(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out, Sum(),
                              T(0), num_items, equality_op, stream);
  }
};

template <typename T>
struct DoubleBuffer {
  T* d_buffers[2];
  int selector;
  MUSAPORT_HD DoubleBuffer() : d_buffers{nullptr, nullptr}, selector(0) {}
  MUSAPORT_HD DoubleBuffer(T* current, T* alternate) : d_buffers{current, alternate}, selector(0) {}
  MUSAPORT_HD T* Current() { return d_buffers[selector]; }
  MUSAPORT_HD T* Alternate() { return d_buffers[selector ^ 1]; }
};

struct DeviceRadixSort {
  template <typename KeyT, typename ValueT, typename NumItemsT>
  static musaError_t SortPairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const KeyT* d_keys_in,
                               KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out,
                               NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                               musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, num_items, Less());
    });
  }
  template <typename KeyT, typename ValueT, typename NumItemsT>
  static musaError_t SortPairsDescending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                         const KeyT* d_keys_in, KeyT* d_keys_out, const ValueT* d_values_in,
                                         ValueT* d_values_out, NumItemsT num_items, int begin_bit = 0,
                                         int end_bit = sizeof(KeyT) * 8, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, num_items,
                                  musaport_detail::Greater());
    });
  }
  template <typename KeyT, typename NumItemsT>
  static musaError_t SortKeys(void* d_temp_storage, std::size_t& temp_storage_bytes, const KeyT* d_keys_in,
                              KeyT* d_keys_out, NumItemsT num_items, int begin_bit = 0,
                              int end_bit = sizeof(KeyT) * 8, musaStream_t stream = 0) {
    return SortPairs(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, (const NullType*)nullptr,
                     (NullType*)nullptr, num_items, begin_bit, end_bit, stream);
  }
  template <typename KeyT, typename NumItemsT>
  static musaError_t SortKeysDescending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                        const KeyT* d_keys_in, KeyT* d_keys_out, NumItemsT num_items,
                                        int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                        musaStream_t stream = 0) {
    return SortPairsDescending(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, (const NullType*)nullptr,
                               (NullType*)nullptr, num_items, begin_bit, end_bit, stream);
  }
};

struct DeviceSegmentedRadixSort {
  template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
  static musaError_t SortPairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const KeyT* d_keys_in,
                               KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out, int num_items,
                               int num_segments, BeginOffsetIteratorT d_begin_offsets,
                               EndOffsetIteratorT d_end_offsets, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                               musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      for (int s = 0; s < num_segments; ++s) {
        const long long b = d_begin_offsets[s], e = d_end_offsets[s];
        musaport_detail::sort_pairs(d_keys_in + b, d_keys_out + b, d_values_in + b, d_values_out + b, e - b, Less());
      }
    });
  }
  template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
  static musaError_t SortPairsDescending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                         const KeyT* d_keys_in, KeyT* d_keys_out, const ValueT* d_values_in,
                                         ValueT* d_values_out, int num_items, int num_segments,
                                         BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                                         int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                         musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      for (int s = 0; s < num_segments; ++s) {
        const long long b = d_begin_offsets[s], e = d_end_offsets[s];
        musaport_detail::sort_pairs(d_keys_in + b, d_keys_out + b, d_values_in + b, d_values_out + b, e - b,
                                    musaport_detail::Greater());
      }
    });
  }
};

struct DeviceReduce {
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT, typename ReductionOpT, typename T>
  static musaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, NumItemsT num_items, ReductionOpT reduction_op, T init,
                            musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      T acc = init;
      for (NumItemsT i = 0; i < num_items; ++i) acc = reduction_op(acc, d_in[i]);
      *d_out = acc;
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<InputIteratorT, OutputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Sum(), T(0), stream);
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Min(), Traits<T>::Max(), stream);
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT>
  static musaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, musaStream_t stream = 0) {
    using T = musaport_detail::value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Max(), Traits<T>::Lowest(),
                  stream);
  }
};

struct DeviceSegmentedReduce {
  template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT, typename ReductionOpT, typename T>
  static musaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, int num_segments, BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets, ReductionOpT reduction_op, T initial_value,
                            musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      musaport_detail::segmented_reduce<void>(d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                                              reduction_op, initial_value);
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT>
  static musaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, int num_segments, BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets, musaStream_t stream = 0) {
    using T = musaport_detail::acc_t<InputIteratorT, OutputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                  cub::Sum(), T(0), stream);
  }
};

struct DeviceSelect {
  template <typename InputIteratorT, typename FlagIterator, typename OutputIteratorT,
            typename NumSelectedIteratorT, typename NumItemsT>
  static musaError_t Flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                             FlagIterator d_flags, OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out,
                             NumItemsT num_items, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (d_flags[i]) d_out[n++] = d_in[i];
      *d_num_selected_out = n;
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT,
            typename SelectOp>
  static musaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                        OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                        SelectOp select_op, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (select_op(d_in[i])) d_out[n++] = d_in[i];
      *d_num_selected_out = n;
    });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT>
  static musaError_t Unique(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                            musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (i == 0 || !(d_in[i] == d_in[i - 1])) d_out[n++] = d_in[i];
      *d_num_selected_out = n;
    });
  }
  template <typename KeyInputIteratorT, typename ValueInputIteratorT, typename KeyOutputIteratorT,
            typename ValueOutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT,
            typename EqualityOpT>
  static musaError_t musaport_unique_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 KeyInputIteratorT d_keys_in, ValueInputIteratorT d_values_in,
                                 KeyOutputIteratorT d_keys_out, ValueOutputIteratorT d_values_out,
                                 NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                                 EqualityOpT equality_op, musaStream_t stream) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT n = 0;
      for (NumItemsT i = 0; i < num_items; ++i)
        if (i == 0 || !equality_op(d_keys_in[i], d_keys_in[i - 1])) {
          d_keys_out[n] = d_keys_in[i];
          d_values_out[n] = d_values_in[i];
          ++n;
        }
      *d_num_selected_out = n;
    });
  }
  template <typename KeyInputIteratorT, typename ValueInputIteratorT, typename KeyOutputIteratorT,
            typename ValueOutputIteratorT, typename NumSelectedIteratorT, typename NumItemsT>
  static musaError_t UniqueByKey(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 KeyInputIteratorT d_keys_in, ValueInputIteratorT d_values_in,
                                 KeyOutputIteratorT d_keys_out, ValueOutputIteratorT d_values_out,
                                 NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                                 musaStream_t stream = 0) {
    return musaport_unique_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_keys_out,
                                  d_values_out, d_num_selected_out, num_items, Equality(), stream);
  }
};

struct DeviceRunLengthEncode {
  template <typename InputIteratorT, typename UniqueOutputIteratorT, typename LengthsOutputIteratorT,
            typename NumRunsOutputIteratorT, typename NumItemsT>
  static musaError_t Encode(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            UniqueOutputIteratorT d_unique_out, LengthsOutputIteratorT d_counts_out,
                            NumRunsOutputIteratorT d_num_runs_out, NumItemsT num_items, musaStream_t stream = 0) {
    return musaport_detail::run_serial(d_temp_storage, temp_storage_bytes, stream, [=] MUSAPORT_HD() mutable {
      NumItemsT runs = 0;
      for (NumItemsT i = 0; i < num_items; ++runs) {
        NumItemsT j = i + 1;
        while (j < num_items && d_in[j] == d_in[i]) ++j;
        d_unique_out[runs] = d_in[i];
        d_counts_out[runs] = j - i;
        i = j;
      }
      *d_num_runs_out = runs;
    });
  }
};

// ------------------------------------------------------------ block- and warp-wide collectives
// cub's interfaces; the bodies stop the kernel with __trap(): enough for the
// syntax check (which needs definitions when a template argument has internal
// linkage), not for running the collectives.
namespace musaport_detail {
__device__ inline void collective_unsupported() { __trap(); }
}  // namespace musaport_detail

enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT,
  BLOCK_LOAD_STRIPED,
  BLOCK_LOAD_VECTORIZE,
  BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};
enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT,
  BLOCK_STORE_STRIPED,
  BLOCK_STORE_VECTORIZE,
  BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockReduceAlgorithm {
  BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
  BLOCK_REDUCE_RAKING,
  BLOCK_REDUCE_WARP_REDUCTIONS
};
enum WarpLoadAlgorithm { WARP_LOAD_DIRECT, WARP_LOAD_STRIPED, WARP_LOAD_VECTORIZE, WARP_LOAD_TRANSPOSE };
enum WarpStoreAlgorithm { WARP_STORE_DIRECT, WARP_STORE_STRIPED, WARP_STORE_VECTORIZE, WARP_STORE_TRANSPOSE };

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD> {};
  __device__ BlockLoad() {}
  __device__ BlockLoad(TempStorage& temp_storage) {}
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) { musaport_detail::collective_unsupported(); }
  template <typename InputIteratorT, typename DefaultT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items, DefaultT oob_default) { musaport_detail::collective_unsupported(); }
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD> {};
  __device__ BlockStore() {}
  __device__ BlockStore(TempStorage& temp_storage) {}
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) { musaport_detail::collective_unsupported(); }
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockExchange {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD> {};
  __device__ BlockExchange() {}
  __device__ BlockExchange(TempStorage& temp_storage) {}
  template <typename OutputT>
  __device__ void BlockedToStriped(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  template <typename OutputT>
  __device__ void StripedToBlocked(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  template <typename OutputT>
  __device__ void BlockedToWarpStriped(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  template <typename OutputT>
  __device__ void WarpStripedToBlocked(const T (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
  }
  __device__ void BlockedToStriped(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  __device__ void StripedToBlocked(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  __device__ void BlockedToWarpStriped(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  __device__ void WarpStripedToBlocked(T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * (BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z + 32)> {};
  __device__ BlockScan() {}
  __device__ BlockScan(TempStorage& temp_storage) {}

  __device__ void InclusiveSum(T input, T& output) { musaport_detail::collective_unsupported(); }
  __device__ void InclusiveSum(T input, T& output, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename BlockPrefixCallbackOp>
  __device__ void InclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD, typename BlockPrefixCallbackOp>
  __device__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                               BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }

  __device__ void ExclusiveSum(T input, T& output) { musaport_detail::collective_unsupported(); }
  __device__ void ExclusiveSum(T input, T& output, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename BlockPrefixCallbackOp>
  __device__ void ExclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD>
  __device__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T& block_aggregate) { musaport_detail::collective_unsupported(); }

  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], ScanOp scan_op) { musaport_detail::collective_unsupported(); }

  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& block_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp, typename BlockPrefixCallbackOp>
  __device__ void ExclusiveScan(T input, T& output, ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) { musaport_detail::collective_unsupported(); }
  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD], T initial_value,
                                ScanOp scan_op) { musaport_detail::collective_unsupported(); }
};

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * 33> {};
  __device__ BlockReduce() {}
  __device__ BlockReduce(TempStorage& temp_storage) {}
  __device__ T Sum(T input) {
    musaport_detail::collective_unsupported();
    return T();
  }
  __device__ T Sum(T input, int num_valid) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <int ITEMS_PER_THREAD>
  __device__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op, int num_valid) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <int ITEMS_PER_THREAD, typename ReductionOp>
  __device__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    musaport_detail::collective_unsupported();
    return T();
  }
};

template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType, int RADIX_BITS = 4,
          bool MEMOIZE_OUTER_SCAN = true, BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS,
          int SMEM_CONFIG = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockRadixSort {
 public:
  struct TempStorage : TempStorageBytes<(sizeof(KeyT) + sizeof(ValueT)) * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z *
                                        ITEMS_PER_THREAD> {};
  __device__ BlockRadixSort() {}
  __device__ BlockRadixSort(TempStorage& temp_storage) {}
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                       int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                                 int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }
  __device__ void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
                                       int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }
  __device__ void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                                       int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) { musaport_detail::collective_unsupported(); }
};

template <typename T, int ITEMS_PER_THREAD, WarpLoadAlgorithm ALGORITHM = WARP_LOAD_DIRECT,
          int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpLoad {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS * ITEMS_PER_THREAD> {};
  __device__ WarpLoad() {}
  __device__ WarpLoad(TempStorage& temp_storage) {}
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <typename InputIteratorT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) { musaport_detail::collective_unsupported(); }
  template <typename InputIteratorT, typename DefaultT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items, DefaultT oob_default) { musaport_detail::collective_unsupported(); }
};

template <typename T, int ITEMS_PER_THREAD, WarpStoreAlgorithm ALGORITHM = WARP_STORE_DIRECT,
          int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpStore {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS * ITEMS_PER_THREAD> {};
  __device__ WarpStore() {}
  __device__ WarpStore(TempStorage& temp_storage) {}
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) { musaport_detail::collective_unsupported(); }
  template <typename OutputIteratorT>
  __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) { musaport_detail::collective_unsupported(); }
};

template <typename KeyT, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS = 32, typename ValueT = NullType,
          int LEGACY_PTX_ARCH = 0>
class WarpMergeSort {
 public:
  struct TempStorage : TempStorageBytes<(sizeof(KeyT) + sizeof(ValueT)) * LOGICAL_WARP_THREADS *
                                        (ITEMS_PER_THREAD + 1)> {};
  __device__ WarpMergeSort(TempStorage& temp_storage) {}
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items, KeyT oob_default) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op,
                       int valid_items, KeyT oob_default) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items,
                             KeyT oob_default) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                             CompareOp compare_op) { musaport_detail::collective_unsupported(); }
  template <typename CompareOp>
  __device__ void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                             CompareOp compare_op, int valid_items, KeyT oob_default) { musaport_detail::collective_unsupported(); }
};

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS> {};
  __device__ WarpReduce(TempStorage& temp_storage) {}
  __device__ T Sum(T input) {
    musaport_detail::collective_unsupported();
    return T();
  }
  __device__ T Sum(T input, int valid_items) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op) {
    musaport_detail::collective_unsupported();
    return T();
  }
  template <typename ReductionOp>
  __device__ T Reduce(T input, ReductionOp reduction_op, int valid_items) {
    musaport_detail::collective_unsupported();
    return T();
  }
};

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpScan {
 public:
  struct TempStorage : TempStorageBytes<sizeof(T) * LOGICAL_WARP_THREADS> {};
  __device__ WarpScan(TempStorage& temp_storage) {}
  __device__ void InclusiveSum(T input, T& inclusive_output) { musaport_detail::collective_unsupported(); }
  __device__ void InclusiveSum(T input, T& inclusive_output, T& warp_aggregate) { musaport_detail::collective_unsupported(); }
  __device__ void ExclusiveSum(T input, T& exclusive_output) { musaport_detail::collective_unsupported(); }
  __device__ void ExclusiveSum(T input, T& exclusive_output, T& warp_aggregate) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void InclusiveScan(T input, T& inclusive_output, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
  template <typename ScanOp>
  __device__ void ExclusiveScan(T input, T& exclusive_output, T initial_value, ScanOp scan_op) { musaport_detail::collective_unsupported(); }
};

}  // namespace cub
CUB_NS_POSTFIX
