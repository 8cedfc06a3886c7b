/*
 * arena.h - a region allocator for jansson in the CLI.
 *
 * Every json value of a document is built, rewritten and dropped together,
 * so the CLI gives jansson an allocator that hands out memory from large
 * chunks and frees nothing one by one; json_arena_reset() empties the
 * region at once after each document. This removes most of the cost of
 * building and, above all, of freeing documents. Builds with
 * AddressSanitizer use the ordinary allocator, so that use-after-free of
 * json values stays detectable.
 */
#ifndef GPUMEND_ARENA_H
#define GPUMEND_ARENA_H

/*
 * Routes jansson's allocations to the region. Must be called before any
 * other jansson call. Returns 1 when the region is in use.
 */
int json_arena_enable(void);

/* 1 when jansson allocates from the region. */
int json_arena_active(void);

/*
 * Forgets every json value allocated since the last reset: none may be
 * used afterwards (and none may be decref'd: drop the pointers instead).
 * Keeps one chunk for the next document.
 */
void json_arena_reset(void);

#endif
