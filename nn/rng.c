/* xoshiro256** (Blackman & Vigna), seeded through splitmix64. Chosen because
 * its whole state is four words the trainer can save for a bit-exact resume. */
#include <math.h>
#include "rng.h"

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void el__rng_seed(el__rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t el__rng_u64(el__rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

float el__rng_uniform(el__rng *r) { return (float)(el__rng_u64(r) >> 40) * (1.0f / 16777216.0f); }

uint32_t el__rng_below(el__rng *r, uint32_t n) {
  /* Lemire's multiply-shift with rejection: unbiased for any n. */
  uint64_t m = (uint64_t)(uint32_t)(el__rng_u64(r) >> 32) * n;
  uint32_t lo = (uint32_t)m;
  if (lo < n) {
    uint32_t thresh = (uint32_t)(-n) % n;
    while (lo < thresh) {
      m = (uint64_t)(uint32_t)(el__rng_u64(r) >> 32) * n;
      lo = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}

float el__rng_normal(el__rng *r) {
  double u1 = ((el__rng_u64(r) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
  double u2 = (el__rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
  return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

el__rng el__rng_split(const el__rng *r, uint64_t tag) {
  el__rng out;
  uint64_t x = r->s[0] ^ rotl(r->s[1], 13) ^ rotl(r->s[2], 29) ^ rotl(r->s[3], 47) ^
               (tag * 0xD1B54A32D192ED03ULL);
  for (int i = 0; i < 4; i++) out.s[i] = splitmix64(&x);
  return out;
}
