/* chunk.c -- content-defined cuts (chunk.h). */
#include "chunk.h"

uint32_t chunk_hash(const chunk_rule *r, const char *name) {
  uint32_t h = 2166136261u ^ r->salt;
  for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
    h ^= *s;
    h *= 16777619u;
  }
  /* FNV's low bits depend little on the last bytes: mix (MurmurHash3's
   * finalizer constants) */
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

int chunk_cut(const chunk_rule *r, int size, int cost, const char *name) {
  if (size <= 0) return 0;
  if (size + cost > r->max) return 1;
  return size >= r->min && (chunk_hash(r, name) & ((1u << r->bits) - 1u)) == 0;
}

int chunk_cut_kept(const chunk_rule *r, int size, int cost, const char *name, int kept, int *last) {
  if (kept < 0) return chunk_cut(r, size, cost, name);
  const int moved = kept != *last;
  *last = kept;
  return size > 0 && (moved || size + cost > r->max);
}
