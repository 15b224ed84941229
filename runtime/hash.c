/* hash.c -- structure hash of a mechanism's equality block (see rt.h). */
#include "rt.h"

static uint64_t mix(uint64_t h, int64_t v) {
  /* FNV-1a over the 8 little-endian bytes of v: the same on every machine. */
  uint64_t u = (uint64_t)v;
  for (int i = 0; i < 8; i++) {
    h ^= (u >> (8 * i)) & 0xffu;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t rt_structure_hash(int nbody, const unsigned char *body_fixed, int njoint,
                           const int *joint_type, const int *joint_a, const int *joint_b) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = mix(h, nbody);
  for (int i = 0; i < nbody; i++) h = mix(h, body_fixed[i] ? 1 : 0);
  h = mix(h, njoint);
  for (int i = 0; i < njoint; i++) {
    h = mix(h, joint_type[i]);
    h = mix(h, joint_a[i]);
    h = mix(h, joint_b[i]);
  }
  return h;
}
