// MUSA's toolkit ships libcu++'s standard-library half as <musa/std/...> in
// namespace musa::std.  On the CPU the host's standard library already runs
// in host and "device" code alike, so musa::std is ::std by another name:
// one alias, not a second copy of the library.
#pragma once

namespace musa {
namespace std = ::std;
}  // namespace musa
