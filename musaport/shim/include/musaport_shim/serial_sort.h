// musaport shim: the stable sort of thrust's stable sorts and cub's radix sorts (both run sequentially).
//
// It sorts positions [0, n) through two callables, less(i, j) and swap(i, j), so
// that keys and values move together whatever their storage, and it needs no
// memory: a __device__ function cannot count on an allocator.  Runs of 16 are
// insertion-sorted, then merged in place by rotations (the buffer-less merge
// of Dudzinski and Dydek): O(n log^2 n) comparisons and swaps.  An insertion
// sort alone is O(n^2), which turned sorts of a few hundred thousand keys
// (PyTorch's sort, unique, randperm) into minutes on the CPU runtime.
#pragma once

#include <cstddef>

#include <musaport_shim/config.h>

namespace musaport::serial {

template <typename Swap>
MUSAPORT_HD void reverse(std::ptrdiff_t first, std::ptrdiff_t last, Swap& swap_at) {
  for (--last; first < last; ++first, --last) swap_at(first, last);
}

// [first, middle) [middle, last) -> [middle, last) [first, middle)
template <typename Swap>
MUSAPORT_HD void rotate(std::ptrdiff_t first, std::ptrdiff_t middle, std::ptrdiff_t last, Swap& swap_at) {
  if (first == middle || middle == last) return;
  reverse(first, middle, swap_at);
  reverse(middle, last, swap_at);
  reverse(first, last, swap_at);
}

// Merge the sorted runs [first, middle) and [middle, last), stably, in place.
template <typename Less, typename Swap>
MUSAPORT_HD void merge(std::ptrdiff_t first, std::ptrdiff_t middle, std::ptrdiff_t last, Less& less, Swap& swap_at) {
  const std::ptrdiff_t len1 = middle - first, len2 = last - middle;
  if (len1 == 0 || len2 == 0) return;
  if (len1 + len2 == 2) {
    if (less(middle, first)) swap_at(first, middle);
    return;
  }
  std::ptrdiff_t first_cut, second_cut;
  if (len1 > len2) {  // split the longer run in half; find where its middle element goes in the other
    first_cut = first + len1 / 2;
    std::ptrdiff_t lo = middle, hi = last;  // lower bound of first_cut in [middle, last)
    while (lo < hi) {
      const std::ptrdiff_t mid = lo + (hi - lo) / 2;
      if (less(mid, first_cut)) lo = mid + 1;
      else hi = mid;
    }
    second_cut = lo;
  } else {
    second_cut = middle + len2 / 2;
    std::ptrdiff_t lo = first, hi = middle;  // upper bound of second_cut in [first, middle)
    while (lo < hi) {
      const std::ptrdiff_t mid = lo + (hi - lo) / 2;
      if (!less(second_cut, mid)) lo = mid + 1;
      else hi = mid;
    }
    first_cut = lo;
  }
  rotate(first_cut, middle, second_cut, swap_at);
  const std::ptrdiff_t new_middle = first_cut + (second_cut - middle);
  merge(first, first_cut, new_middle, less, swap_at);
  merge(new_middle, second_cut, last, less, swap_at);
}

// Stable sort of positions [0, n).
template <typename Less, typename Swap>
MUSAPORT_HD void stable_sort(std::ptrdiff_t n, Less less, Swap swap_at) {
  constexpr std::ptrdiff_t kRun = 16;
  for (std::ptrdiff_t begin = 0; begin < n; begin += kRun) {
    const std::ptrdiff_t end = begin + kRun < n ? begin + kRun : n;
    for (std::ptrdiff_t i = begin + 1; i < end; ++i)
      for (std::ptrdiff_t j = i; j > begin && less(j, j - 1); --j) swap_at(j, j - 1);
  }
  for (std::ptrdiff_t width = kRun; width < n; width *= 2)
    for (std::ptrdiff_t begin = 0; begin + width < n; begin += 2 * width)
      merge(begin, begin + width, begin + 2 * width < n ? begin + 2 * width : n, less, swap_at);
}

}  // namespace musaport::serial
