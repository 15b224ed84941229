/* test_chunk.c -- content-defined cuts (gen/chunk.h): chunks keep to the
 * rule's bounds, the cuts follow the names and not their positions, and an
 * item inserted into a long sequence moves the cuts of its own chunk and
 * of the next few at most. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "chunk.h"

enum { NMAX = 600, NAME = 16 };

/* cut[i] = 1 if a chunk starts at item i (of n, each of cost[i]); returns
 * the number of chunks. */
static int cuts(const chunk_rule *r, char names[][NAME], const int *cost, int n, unsigned char *cut) {
  int size = 0, chunks = 0;
  for (int i = 0; i < n; i++) {
    cut[i] = i == 0 || chunk_cut(r, size, cost[i], names[i]);
    if (cut[i]) {
      size = 0;
      chunks++;
    }
    size += cost[i];
  }
  return chunks;
}

static uint32_t rng(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static void test_bounds(void **state) {
  (void)state;
  const chunk_rule r = {100, 200, 2, 7};
  static char names[NMAX][NAME];
  int cost[NMAX];
  unsigned char cut[NMAX];
  uint32_t s = 1;
  for (int i = 0; i < NMAX; i++) {
    snprintf(names[i], NAME, "p%u", rng(&s) % 100000);
    cost[i] = 1 + (int)(rng(&s) % 12);
  }
  cost[17] = 250; /* larger than max alone: a chunk of its own */
  cuts(&r, names, cost, NMAX, cut);
  for (int i = 0; i < NMAX;) {
    int j = i + 1, size = cost[i];
    while (j < NMAX && !cut[j]) size += cost[j++];
    if (j - i > 1) assert_true(size <= r.max);
    /* a chunk cut before max ended at an anchor past min (or at the end) */
    if (j < NMAX && size + cost[j] <= r.max) {
      assert_true(size >= r.min);
      assert_int_equal(chunk_hash(&r, names[j]) & 3u, 0);
    }
    i = j;
  }
  assert_true(cut[17] && cut[18]);
  /* the salt moves the anchors; the same rule, the same hash */
  const chunk_rule other = {100, 200, 2, 8};
  int differ = 0;
  for (int i = 0; i < 64; i++) differ += (chunk_hash(&r, names[i]) & 3u) != (chunk_hash(&other, names[i]) & 3u);
  assert_true(differ > 16);
  assert_int_equal(chunk_hash(&r, "pivot"), chunk_hash(&r, "pivot"));
  assert_false(chunk_cut(&r, 0, 300, "anything")); /* nothing open: no cut */
}

/* A known previous chunk (kept >= 0) decides instead of the name's hash:
 * a cut where it differs from the last known item's, which it becomes,
 * and never past max; kept -1 leaves it to chunk_cut and *last alone. */
static void test_kept_chunks_decide(void **state) {
  (void)state;
  const chunk_rule r = {0, 20, 3, 7};
  int anchors = 0, others = 0;
  for (int i = 0; i < 200; i++) {
    char name[16];
    snprintf(name, sizeof name, "c%d", i);
    const int anchor = (chunk_hash(&r, name) & 7u) == 0;
    anchors += anchor;
    others += !anchor;
    int last = 3;
    assert_int_equal(chunk_cut_kept(&r, 5, 1, name, -1, &last), chunk_cut(&r, 5, 1, name));
    assert_int_equal(last, 3);                                  /* a new item: none known */
    assert_int_equal(chunk_cut_kept(&r, 5, 1, name, 3, &last), 0); /* the same chunk as before */
    assert_int_equal(chunk_cut_kept(&r, 5, 1, name, 4, &last), 1); /* the next one */
    assert_int_equal(last, 4);
    assert_int_equal(chunk_cut_kept(&r, 19, 2, name, 4, &last), 1); /* past max all the same */
    assert_int_equal(chunk_cut_kept(&r, 0, 1, name, 6, &last), 0);  /* nothing open */
    assert_int_equal(last, 6);
  }
  assert_true(anchors > 0 && others > 0); /* both kinds of name were tried */
}

/* One item inserted at a random place of 500: the cuts before it stay, and
 * from the third chunk after it on they are again where they were (the
 * same names start chunks) in nearly every trial (chunk.h: 99 % of 1000);
 * cutting every 20 items instead would move every cut after it. */
static void test_insertion_moves_few_cuts(void **state) {
  (void)state;
  const chunk_rule r = {0, 200, 3, CHUNK_SALT}; /* the generated solve's */
  static char a[NMAX][NAME], b[NMAX][NAME];
  int ca[NMAX], cb[NMAX];
  unsigned char cuta[NMAX], cutb[NMAX];
  uint32_t s = 42;
  int settled = 0, moved_total = 0;
  const int trials = 200, n = 500;
  for (int t = 0; t < trials; t++) {
    for (int i = 0; i < n; i++) {
      snprintf(a[i], NAME, "c%u", rng(&s) % 1000000);
      ca[i] = 2 + (int)(rng(&s) % 8);
    }
    const int at = 1 + (int)(rng(&s) % (unsigned)(n - 2));
    for (int i = 0, j = 0; i < n + 1; i++) {
      if (i == at) {
        snprintf(b[i], NAME, "new%u", rng(&s) % 1000000);
        cb[i] = 5;
      } else {
        memcpy(b[i], a[j], NAME);
        cb[i] = ca[j++];
      }
    }
    cuts(&r, a, ca, n, cuta);
    cuts(&r, b, cb, n + 1, cutb);
    for (int i = 0; i < at; i++) assert_int_equal(cuta[i], cutb[i]);
    /* the chunks after the insertion: from which on do they agree? */
    int chunks_after = 0, agree_from = -1;
    for (int i = at + 1; i < n + 1 && agree_from < 0; i++) {
      if (!cutb[i]) continue;
      chunks_after++;
      int same = 1;
      for (int k = i; k < n + 1 && same; k++) same = cutb[k] == cuta[k - 1];
      if (same) agree_from = chunks_after;
    }
    for (int i = at + 1; i < n + 1; i++) moved_total += cutb[i] != cuta[i - 1];
    settled += agree_from < 0 || agree_from <= 3; /* < 0: no cut after it */
  }
  assert_true(settled >= trials * 95 / 100);
  assert_true(moved_total <= trials / 4); /* cuts moved or added after it: 0.05 an edit measured */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bounds),
      cmocka_unit_test(test_insertion_moves_few_cuts),
      cmocka_unit_test(test_kept_chunks_decide),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
