/* arena.h -- bump allocator for one compilation: everything the symbolic
 * phase builds (mechanism, graphs, program IR) lives in one arena and is
 * released with a single arena_free. Allocations are zeroed. */
#ifndef LDLPGS_GEN_ARENA_H
#define LDLPGS_GEN_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct arena {
  arena_chunk *head;
  size_t used;   /* bytes used in head */
  size_t total;  /* bytes handed out, for statistics */
} arena;

void arena_init(arena *a);
void arena_free(arena *a);
/* Zeroed, max_align_t-aligned memory; aborts on out-of-memory (the compiler
 * cannot do anything useful without it). */
void *arena_alloc(arena *a, size_t size);
char *arena_strdup(arena *a, const char *s);

#define ARENA_ARRAY(a, type, n) ((type *)arena_alloc((a), sizeof(type) * (size_t)(n)))

#endif
