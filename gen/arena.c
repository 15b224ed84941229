/* arena.c -- see arena.h. */
#include "arena.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
  arena_chunk *next;
  size_t size;
  alignas(max_align_t) unsigned char data[];
};

enum { CHUNK_MIN = 64 * 1024 };

void arena_init(arena *a) { memset(a, 0, sizeof *a); }

void arena_free(arena *a) {
  arena_chunk *c = a->head;
  while (c) {
    arena_chunk *next = c->next;
    free(c);
    c = next;
  }
  memset(a, 0, sizeof *a);
}

void *arena_alloc(arena *a, size_t size) {
  const size_t align = alignof(max_align_t);
  size = (size + align - 1) / align * align;
  if (size == 0) size = align;
  if (!a->head || a->used + size > a->head->size) {
    size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;
    arena_chunk *c = malloc(sizeof *c + cap);
    if (!c) {
      fprintf(stderr, "ldlgen: out of memory (%zu bytes)\n", cap);
      abort();
    }
    c->next = a->head;
    c->size = cap;
    a->head = c;
    a->used = 0;
  }
  void *p = a->head->data + a->used;
  a->used += size;
  a->total += size;
  memset(p, 0, size);
  return p;
}

char *arena_strdup(arena *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = arena_alloc(a, n);
  memcpy(p, s, n);
  return p;
}
