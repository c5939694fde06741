/* Dynamic masking: the count rule with round-half-even, candidates, sampling
 * without replacement, and the 85/15 (ELECTRA) and 80/10/10 (MLM) splits,
 * with a fixed RNG. Distribution checks use n >= 1e5 draws; tolerances are
 * about 5 standard deviations of a binomial proportion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../test.h"
#include "masking.h"

enum { PAD = 0, UNK = 1, CLS = 2, SEP = 3, MASK = 4, V = 50 };

static el__mask_cfg cfg(float p, int seq_len) {
  el__mask_cfg c = {p, el__max_predictions(p, seq_len), V, PAD, UNK, CLS, SEP, MASK};
  return c;
}

static void test_counts(void) {
  CHECK(el__max_predictions(0.15f, 128) == 19, "max_predictions(0.15, 128) = 19 (GR)");
  CHECK(el__max_predictions(0.15f, 512) == 79, "max_predictions(0.15, 512) = 79");
  CHECK(el__max_predictions(0.25f, 512) == 130, "max_predictions(0.25, 512) = 130");
  /* float32 products: 10*0.15 = 1.5 -> 2 (half to even), 30*0.15 = 4.5 -> 4,
   * 70*0.15 = 10.5 -> 10, 50*0.15 rounds to 7.5000005 -> 8 */
  CHECK(el__mask_count(10, 0.15f, 19) == 2, "round(1.5) = 2");
  CHECK(el__mask_count(30, 0.15f, 19) == 4, "round(4.5) = 4 (half to even)");
  CHECK(el__mask_count(70, 0.15f, 19) == 10, "round(10.5) = 10 (half to even)");
  CHECK(el__mask_count(50, 0.15f, 19) == 8, "round(7.5000005) = 8");
  CHECK(el__mask_count(3, 0.15f, 19) == 1, "at least 1 (round(0.45) = 0)");
  CHECK(el__mask_count(128, 0.15f, 19) == 19, "128 tokens -> 19");
  CHECK(el__mask_count(512, 0.15f, 19) == 19, "capped at max_predictions");
}

/* Builds a packed batch: each sequence [CLS] tokens... [SEP] (with a B
 * segment when b_len > 0), tokens drawn from [5, V). */
typedef struct batch {
  int n_seqs, T;
  int seq_len[64], ids[64 * 256];
} batch;

static void make_seq(batch *b, int a_len, int b_len, el__rng *r) {
  int *x = b->ids + b->T, n = 0;
  x[n++] = CLS;
  for (int i = 0; i < a_len; i++) x[n++] = 5 + (int)el__rng_below(r, V - 5);
  x[n++] = SEP;
  if (b_len) {
    for (int i = 0; i < b_len; i++) x[n++] = 5 + (int)el__rng_below(r, V - 5);
    x[n++] = SEP;
  }
  b->seq_len[b->n_seqs++] = n;
  b->T += n;
}

static el_batch view(const batch *b) {
  el_batch v = {b->n_seqs, b->seq_len, b->ids, NULL};
  return v;
}

static void test_electra_rules(void) {
  el__mask_cfg c = cfg(0.15f, 128);
  batch b;
  memset(&b, 0, sizeof b);
  el__rng r;
  el__rng_seed(&r, 7);
  make_seq(&b, 60, 63, &r);  /* 126 tokens -> round(18.9) = 19 */
  make_seq(&b, 8, 0, &r);    /* 10 tokens -> 2 */
  make_seq(&b, 0, 0, &r);    /* [CLS][SEP]: no candidate */
  make_seq(&b, 1, 0, &r);    /* 3 tokens -> 1 */
  b.ids[b.T - 2] = MASK;     /* ... but its only content token is [MASK]: none */
  make_seq(&b, 27, 0, &r);   /* 29 tokens: round(4.35) = 4 */
  b.ids[b.T - 10] = UNK;     /* [UNK] stays a candidate (GR) */
  b.ids[b.T - 11] = PAD;     /* [PAD] is never a candidate */
  int pos[64 * 20];
  uint8_t um[64 * 20];
  el_batch v = view(&b);
  el__rng_seed(&r, 1);
  int n = el__mask_electra(&c, &v, &r, pos, um);
  CHECK(n == 19 + 2 + 0 + 0 + 4, "selected counts per sequence 19+2+0+0+4 (got %d)", n);
  int ok_cand = 1, ok_sorted = 1;
  for (int i = 0; i < n; i++) {
    int id = b.ids[pos[i]];
    ok_cand &= id != CLS && id != SEP && id != MASK && id != PAD;
    if (i) ok_sorted &= pos[i] > pos[i - 1];
  }
  CHECK(ok_cand, "only candidate tokens are selected");
  CHECK(ok_sorted, "positions are distinct and increasing");
  int per[5] = {0}, base = 0, s = 0;
  for (int i = 0; i < n; i++) {
    while (pos[i] >= base + b.seq_len[s]) base += b.seq_len[s++];
    per[s]++;
  }
  CHECK(per[0] == 19 && per[1] == 2 && per[2] == 0 && per[3] == 0 && per[4] == 4,
        "per-sequence counts %d %d %d %d %d", per[0], per[1], per[2], per[3], per[4]);
  el__rng_seed(&r, 1);
  int pos2[64 * 20];
  uint8_t um2[64 * 20];
  int n2 = el__mask_electra(&c, &v, &r, pos2, um2);
  CHECK(n2 == n && !memcmp(pos, pos2, sizeof(int) * n) && !memcmp(um, um2, n),
        "same rng state, same masking");

  /* more positions wanted than candidates: all candidates taken */
  batch sm;
  memset(&sm, 0, sizeof sm);
  make_seq(&sm, 2, 0, &r);
  el__mask_cfg c9 = cfg(0.9f, 128);
  v = view(&sm);
  n = el__mask_electra(&c9, &v, &r, pos, um);
  CHECK(n == 2 && pos[0] == 1 && pos[1] == 2, "at most the number of candidates (%d)", n);
}

static void test_electra_distribution(void) {
  el__mask_cfg c = cfg(0.15f, 128);
  batch b;
  memset(&b, 0, sizeof b);
  el__rng r;
  el__rng_seed(&r, 3);
  make_seq(&b, 38, 0, &r); /* 40 tokens -> 6 of 38 candidates */
  el_batch v = view(&b);
  long hits[40] = {0}, masked = 0, total = 0;
  int pos[8];
  uint8_t um[8];
  const int trials = 40000;
  for (int t = 0; t < trials; t++) {
    int n = el__mask_electra(&c, &v, &r, pos, um);
    for (int i = 0; i < n; i++) {
      hits[pos[i]]++;
      masked += um[i];
    }
    total += n;
  }
  CHECK(total == 6L * trials, "always 6 positions");
  double p = (double)masked / total, sd = sqrt(0.85 * 0.15 / total);
  CHECK_NEAR(p, 0.85, 5 * sd, 0, "85%% of selected positions become [MASK] (%.4f)", p);
  /* uniform over the 38 candidates: each selected with p 6/38 per trial */
  double q = 6.0 / 38, sdq = sqrt(q * (1 - q) / trials), worst = 0;
  for (int i = 1; i <= 38; i++) {
    double f = (double)hits[i] / trials;
    if (fabs(f - q) > worst) worst = fabs(f - q);
  }
  CHECK(worst < 5 * sdq, "positions uniform over candidates (max deviation %.4f, 5 sd %.4f)", worst,
        5 * sdq);
  CHECK(hits[0] == 0 && hits[39] == 0, "[CLS] and [SEP] never selected");
}

static void test_mlm(void) {
  el__mask_cfg c = cfg(0.15f, 128);
  batch b;
  memset(&b, 0, sizeof b);
  el__rng r;
  el__rng_seed(&r, 11);
  make_seq(&b, 60, 65, &r); /* 128 tokens -> 19 */
  el_batch v = view(&b);
  int out[256], pos[32], tgt[32];
  uint8_t kind[32];
  long k[3] = {0}, total = 0, bad = 0;
  const int trials = 8000;
  for (int t = 0; t < trials; t++) {
    int n = el__mask_mlm(&c, &v, &r, 0, out, pos, tgt, kind);
    total += n;
    int sel = 0;
    for (int i = 0; i < b.T; i++) {
      if (sel < n && pos[sel] == i) {
        bad += tgt[sel] != b.ids[i];
        if (kind[sel] == 0) bad += out[i] != MASK;
        else if (kind[sel] == 1) bad += out[i] != b.ids[i];
        else bad += out[i] < 5 || out[i] >= V; /* random: never a special token */
        k[kind[sel]]++;
        sel++;
      } else {
        bad += out[i] != b.ids[i];
      }
    }
  }
  CHECK(total == 19L * trials, "19 positions per 128-token sequence");
  CHECK(bad == 0, "targets, [MASK], kept and random tokens as declared; others untouched (%ld bad)",
        bad);
  double sd8 = sqrt(0.8 * 0.2 / total), sd1 = sqrt(0.1 * 0.9 / total);
  CHECK_NEAR((double)k[0] / total, 0.8, 5 * sd8, 0, "80%% [MASK] (%.4f)", (double)k[0] / total);
  CHECK_NEAR((double)k[1] / total, 0.1, 5 * sd1, 0, "10%% kept (%.4f)", (double)k[1] / total);
  CHECK_NEAR((double)k[2] / total, 0.1, 5 * sd1, 0, "10%% random (%.4f)", (double)k[2] / total);
}

int main(void) {
  test_counts();
  test_electra_rules();
  test_electra_distribution();
  test_mlm();
  return el_test_done();
}
