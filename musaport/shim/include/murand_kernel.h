// musaport shim: device-side random numbers with the Philox4x32-10
// counter-based generator (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011).
//
// A state is a 128-bit counter, a 64-bit key (the seed) and a position in the
// current block of four 32-bit outputs.  `murand_init(seed, subsequence,
// offset, &state)` keys the generator with the seed, puts the subsequence in
// the upper 64 counter bits (each subsequence is 2^64 blocks long) and then
// skips `offset` 32-bit outputs.  The same functions run on the CPU and parse
// in device code.
#pragma once

#include "musaport_shim/config.h"
#include "musaport_shim/device_math.h"
#include "musaport_shim/vector_types.h"

namespace musaport {
namespace philox {

constexpr unsigned int kMul0 = 0xD2511F53u;   // round multipliers
constexpr unsigned int kMul1 = 0xCD9E8D57u;
constexpr unsigned int kWeyl0 = 0x9E3779B9u;  // key schedule increments (golden ratio, sqrt(3)-1)
constexpr unsigned int kWeyl1 = 0xBB67AE85u;
constexpr float kInv2Pow32 = 2.3283064365386963e-10f;  // 2^-32
constexpr double kInv2Pow53 = 1.1102230246251565e-16;  // 2^-53
constexpr float kTwoPi = 6.2831853071795864f;

// One Philox round: two 32x32->64 multiplications mix the four words, the
// key is xored into the high halves.
MUSAPORT_HD_INLINE uint4 round(uint4 c, uint2 k) {
  const unsigned long long p0 = (unsigned long long)kMul0 * c.x;
  const unsigned long long p1 = (unsigned long long)kMul1 * c.z;
  return make_uint4((unsigned int)(p1 >> 32) ^ c.y ^ k.x, (unsigned int)p1, (unsigned int)(p0 >> 32) ^ c.w ^ k.y,
                    (unsigned int)p0);
}

// Ten rounds; the key advances by a Weyl sequence between rounds.
MUSAPORT_HD_INLINE uint4 block(uint4 counter, uint2 key) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      key.x += kWeyl0;
      key.y += kWeyl1;
    }
    counter = round(counter, key);
  }
  return counter;
}

// 128-bit counter += n (n added at word `first`, carries propagate up).
MUSAPORT_HD_INLINE void add_to_counter(uint4& c, unsigned long long n, int first) {
  unsigned int* w[4] = {&c.x, &c.y, &c.z, &c.w};
  unsigned long long carry = n;
  for (int i = first; i < 4 && carry != 0; ++i) {
    const unsigned long long sum = (unsigned long long)*w[i] + (carry & 0xffffffffull);
    *w[i] = (unsigned int)sum;
    carry = (carry >> 32) + (sum >> 32);
  }
}

// 32-bit integer -> float in (0, 1].
MUSAPORT_HD_INLINE float to_uniform(unsigned int x) { return x * kInv2Pow32 + kInv2Pow32 / 2.0f; }

// Two 32-bit integers -> double in (0, 1] with 53 random bits.
MUSAPORT_HD_INLINE double to_uniform_double(unsigned int x, unsigned int y) {
  const unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << 21);
  return (double)z * kInv2Pow53 + kInv2Pow53 / 2.0;
}

// Box-Muller: two uniforms -> two independent standard normals.
MUSAPORT_HD_INLINE float2 box_muller(unsigned int x, unsigned int y) {
  const float u = to_uniform(x);
  const float angle = y * (kInv2Pow32 * kTwoPi) + kInv2Pow32 * kTwoPi / 2.0f;
  const float radius = sqrtf(-2.0f * logf(u));
  return make_float2(sinf(angle) * radius, cosf(angle) * radius);
}

MUSAPORT_HD_INLINE double2 box_muller_double(uint4 v) {
  const double u = to_uniform_double(v.x, v.y);
  const double angle = to_uniform_double(v.z, v.w) * 6.283185307179586;
  const double radius = sqrt(-2.0 * log(u));
  return make_double2(sin(angle) * radius, cos(angle) * radius);
}

}  // namespace philox
}  // namespace musaport

struct murandStatePhilox4_32_10 {
  uint4 counter;         // block counter; x is the least significant word
  uint4 output;          // Philox(counter, key): the current four outputs
  uint2 key;             // the seed
  unsigned int position; // next output word in `output` (0..3)
  int has_normal;        // a second Box-Muller value is cached
  float normal;
  int has_normal_double;
  double normal_double;
};
typedef struct murandStatePhilox4_32_10 murand_state_philox4x32_10;

// Advance by n blocks and refresh the output block.
MUSAPORT_HD_INLINE void musaport_philox_advance(murand_state_philox4x32_10* s, unsigned long long blocks) {
  musaport::philox::add_to_counter(s->counter, blocks, 0);
  s->output = musaport::philox::block(s->counter, s->key);
}

// Skip n 32-bit outputs.
MUSAPORT_HD_INLINE void skipahead(unsigned long long n, murand_state_philox4x32_10* s) {
  unsigned long long blocks = n / 4;
  s->position += (unsigned int)(n % 4);
  if (s->position > 3) {
    s->position -= 4;
    ++blocks;
  }
  musaport_philox_advance(s, blocks);
}

// Skip n subsequences (2^64 blocks each).
MUSAPORT_HD_INLINE void skipahead_sequence(unsigned long long n, murand_state_philox4x32_10* s) {
  musaport::philox::add_to_counter(s->counter, n, 2);
  s->output = musaport::philox::block(s->counter, s->key);
}

MUSAPORT_HD_INLINE void murand_init(unsigned long long seed, unsigned long long subsequence,
                                    unsigned long long offset, murand_state_philox4x32_10* s) {
  s->counter = make_uint4(0, 0, 0, 0);
  s->key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
  s->position = 0;
  s->has_normal = 0;
  s->normal = 0.0f;
  s->has_normal_double = 0;
  s->normal_double = 0.0;
  skipahead_sequence(subsequence, s);
  skipahead(offset, s);
}

// Next 32-bit output.
MUSAPORT_HD_INLINE unsigned int murand(murand_state_philox4x32_10* s) {
  const unsigned int words[4] = {s->output.x, s->output.y, s->output.z, s->output.w};
  const unsigned int value = words[s->position++];
  if (s->position == 4) {
    s->position = 0;
    musaport_philox_advance(s, 1);
  }
  return value;
}

// Next four 32-bit outputs (one whole block's worth, from the current position).
MUSAPORT_HD_INLINE uint4 murand4(murand_state_philox4x32_10* s) {
  const unsigned int a = murand(s), b = murand(s), c = murand(s), d = murand(s);
  return make_uint4(a, b, c, d);
}

MUSAPORT_HD_INLINE float murand_uniform(murand_state_philox4x32_10* s) {
  return musaport::philox::to_uniform(murand(s));
}

MUSAPORT_HD_INLINE float4 murand_uniform4(murand_state_philox4x32_10* s) {
  const uint4 v = murand4(s);
  return make_float4(musaport::philox::to_uniform(v.x), musaport::philox::to_uniform(v.y),
                     musaport::philox::to_uniform(v.z), musaport::philox::to_uniform(v.w));
}

MUSAPORT_HD_INLINE double murand_uniform_double(murand_state_philox4x32_10* s) {
  const unsigned int x = murand(s), y = murand(s);
  return musaport::philox::to_uniform_double(x, y);
}

MUSAPORT_HD_INLINE double2 murand_uniform2_double(murand_state_philox4x32_10* s) {
  const uint4 v = murand4(s);
  return make_double2(musaport::philox::to_uniform_double(v.x, v.y), musaport::philox::to_uniform_double(v.z, v.w));
}

// Standard normal; values come in Box-Muller pairs, the second is cached.
MUSAPORT_HD_INLINE float murand_normal(murand_state_philox4x32_10* s) {
  if (s->has_normal) {
    s->has_normal = 0;
    return s->normal;
  }
  const unsigned int x = murand(s), y = murand(s);
  const float2 pair = musaport::philox::box_muller(x, y);
  s->has_normal = 1;
  s->normal = pair.y;
  return pair.x;
}

MUSAPORT_HD_INLINE float2 murand_normal2(murand_state_philox4x32_10* s) {
  const unsigned int x = murand(s), y = murand(s);
  return musaport::philox::box_muller(x, y);
}

MUSAPORT_HD_INLINE float4 murand_normal4(murand_state_philox4x32_10* s) {
  const uint4 v = murand4(s);
  const float2 a = musaport::philox::box_muller(v.x, v.y), b = musaport::philox::box_muller(v.z, v.w);
  return make_float4(a.x, a.y, b.x, b.y);
}

MUSAPORT_HD_INLINE double murand_normal_double(murand_state_philox4x32_10* s) {
  if (s->has_normal_double) {
    s->has_normal_double = 0;
    return s->normal_double;
  }
  const double2 pair = musaport::philox::box_muller_double(murand4(s));
  s->has_normal_double = 1;
  s->normal_double = pair.y;
  return pair.x;
}

MUSAPORT_HD_INLINE double2 murand_normal2_double(murand_state_philox4x32_10* s) {
  return musaport::philox::box_muller_double(murand4(s));
}

MUSAPORT_HD_INLINE float murand_log_normal(murand_state_philox4x32_10* s, float mean, float stddev) {
  return expf(mean + stddev * murand_normal(s));
}

MUSAPORT_HD_INLINE double murand_log_normal_double(murand_state_philox4x32_10* s, double mean, double stddev) {
  return exp(mean + stddev * murand_normal_double(s));
}

// Poisson: Knuth's product of uniforms for small lambda, a rounded normal
// approximation (mean and variance lambda) above 64.
MUSAPORT_HD_INLINE unsigned int murand_poisson(murand_state_philox4x32_10* s, double lambda) {
  if (lambda <= 0.0) return 0u;
  if (lambda > 64.0) {
    const double x = floor(lambda + sqrt(lambda) * murand_normal_double(s) + 0.5);
    return x < 0.0 ? 0u : (unsigned int)x;
  }
  const double limit = exp(-lambda);
  unsigned int k = 0;
  double p = murand_uniform_double(s);
  while (p > limit) {
    ++k;
    p *= murand_uniform_double(s);
  }
  return k;
}
