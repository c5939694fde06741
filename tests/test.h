/* Minimal test harness: each CHECK prints a TAP-style line that tests/run.sh
 * counts ("ok - ..." / "not ok - ..."); a failure prints both sides with
 * file:line. main() ends with `return el_test_done();` (exit 1 on any failure). */
#ifndef EL_TEST_H
#define EL_TEST_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int el_test_failed_ = 0, el_test_passed_ = 0;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (cond) {                                                            \
      el_test_passed_++;                                                   \
      printf("ok - ");                                                     \
      printf(__VA_ARGS__);                                                 \
      printf("\n");                                                        \
    } else {                                                               \
      el_test_failed_++;                                                   \
      printf("not ok - ");                                                 \
      printf(__VA_ARGS__);                                                 \
      printf("  [%s:%d: %s]\n", __FILE__, __LINE__, #cond);                \
    }                                                                      \
    fflush(stdout);                                                        \
  } while (0)

/* |a - b| <= atol + rtol * |b| */
#define CHECK_NEAR(a, b, atol, rtol, ...)                                         \
  do {                                                                            \
    double a_ = (a), b_ = (b);                                                    \
    int okn_ = fabs(a_ - b_) <= (atol) + (rtol)*fabs(b_);                         \
    CHECK(okn_, __VA_ARGS__);                                                     \
    if (!okn_) printf("#   got %.9g, expected %.9g (diff %.3g)\n", a_, b_, a_ - b_); \
  } while (0)

#define SKIP(...)                        \
  do {                                   \
    printf("ok - # SKIP ");              \
    printf(__VA_ARGS__);                 \
    printf("\n");                        \
    fflush(stdout);                      \
  } while (0)

static inline int el_test_done(void) {
  printf("# %d passed, %d failed\n", el_test_passed_, el_test_failed_);
  return el_test_failed_ ? 1 : 0;
}
#endif
