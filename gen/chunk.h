/* chunk.h -- content-defined cuts: where a sequence of named items (pivots,
 * constraints) is cut into generated functions or groups, decided by the
 * items' own names rather than their positions (issue 18).
 *
 * Cutting every n items, or wherever a budget fills, moves every cut after
 * an item inserted or removed, and the diff of a generated file then shows
 * a function's closing and opening lines, and the items moved across them,
 * at every cut after the edit. Here a chunk ends before an item whose name
 * is an anchor (its hash has `bits` low bits zero: one name in 2^bits),
 * once the chunk holds at least `min`; and before any item that would take
 * it past `max`. The names decide alone, not positions or counts of other
 * items, so an edit moves the cuts of its own chunk, and of the next ones
 * only while they end at `max` (rare when 2^bits items of the usual cost
 * stay well below max) or, where the edit adds or removes a cut, while the
 * anchors that follow are closer than `min`. Measured (tests/test_chunk.c's
 * trial, 1000 random sequences of 500 names of costs 2-9, one name
 * inserted, max 200 and 3 bits): with min 0, the cuts after the edit agree
 * again from the first chunk after it in 96 % of them and from the third in
 * 99 %; with min 25, 91 % and 98 %; with min 100 (and 2 bits) 78 % and 88 %.
 * The generator's rules have min 0: a constraint renamed so that its name
 * becomes an anchor (or stops being one) then adds (or drops) the cut at
 * itself alone -- its function's frame, a closing brace and a blank line,
 * and its sweep part's pairs -- where a min would move the next cuts too. */
#ifndef LDLPGS_GEN_CHUNK_H
#define LDLPGS_GEN_CHUNK_H

#include <stdint.h>

/* The salt of every rule of the generated code (the solve's, the
 * assembly's and the sweep's functions): they anchor at the same names, so
 * a renamed constraint toggles the cuts at itself in about one rename in
 * five (2 x 1/8 x 7/8; 7 of the sample lift's 47), not in one in two as
 * with a salt each. */
#define CHUNK_SALT 0x501e

typedef struct chunk_rule {
  int min;       /* a chunk this large or larger ends before an anchor */
  int max;       /* and never grows past this (an item larger alone is a chunk) */
  unsigned bits; /* an anchor: a name whose hash has these low bits zero */
  uint32_t salt; /* rules with different salts anchor at different names */
} chunk_rule;

/* The hash of name under the rule's salt (FNV-1a, then mixed: every bit
 * depends on every byte). */
uint32_t chunk_hash(const chunk_rule *r, const char *name);

/* Whether an open chunk of `size` (in the caller's units; 0: none is open)
 * ends before the item `name` of `cost` units. */
int chunk_cut(const chunk_rule *r, int size, int cost, const char *name);

/* chunk_cut, unless the previous program's chunk of the item is known
 * (kept >= 0: ldlgen --keep-order, program_kept_chunk): then a chunk ends
 * before it where its previous chunk differs from the last known item's
 * (*last, the caller's, from 0: the first chunk) or where it would pass
 * max, whatever the item's name is now. So a renamed item keeps its cuts,
 * and where the item that began a chunk is gone, the next one of its
 * chunk begins it instead. */
int chunk_cut_kept(const chunk_rule *r, int size, int cost, const char *name, int kept, int *last);

#endif
