/* Internal: a small deterministic RNG (xoshiro256**) whose whole state is 4
 * words, so the trainer can save it and resume bit for bit. */
#ifndef EL_RNG_H
#define EL_RNG_H
#include <stdint.h>

typedef struct el__rng { uint64_t s[4]; } el__rng;

void el__rng_seed(el__rng *r, uint64_t seed);
uint64_t el__rng_u64(el__rng *r);
/* Uniform in [0, 1) with 24 random bits. */
float el__rng_uniform(el__rng *r);
/* Uniform integer in [0, n), n > 0, unbiased. */
uint32_t el__rng_below(el__rng *r, uint32_t n);
/* Standard normal (Box-Muller). */
float el__rng_normal(el__rng *r);
/* Independent stream derived from r and a tag (e.g. per thread or per purpose). */
el__rng el__rng_split(const el__rng *r, uint64_t tag);

#endif
