/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arena.h - a region allocator for jansson, in the CLI and the webhook.
 *
 * Every json value of a document (or of one admission review) is built,
 * rewritten and dropped together, so jansson gets an allocator that hands
 * out memory from large chunks and frees nothing one by one; the region
 * is emptied at once afterwards. This removes most of the cost of
 * building and, above all, of freeing documents. Builds with
 * AddressSanitizer use the ordinary allocator, so that use-after-free of
 * json values stays detectable.
 *
 * Two ways to use it:
 * - the CLI (one thread): json_arena_enable(); every jansson allocation
 *   comes from the region; json_arena_reset() after each document;
 * - the webhook (a thread per connection or a pool): json_arena_scoped()
 *   once at start; jansson then allocates from the calling thread's own
 *   region between json_arena_begin() and json_arena_end(), and from
 *   malloc elsewhere. Values made outside a scope may be freed inside one
 *   and the other way round is never needed: nothing made inside a scope
 *   may outlive it.
 */
#ifndef GPUMEND_ARENA_H
#define GPUMEND_ARENA_H

#include <jansson.h>

/*
 * Routes all of jansson's allocations to the region. Must be called
 * before any other jansson call. Returns 1 when the region is in use.
 */
int json_arena_enable(void);

/*
 * Routes jansson's allocations inside json_arena_begin()/_end() scopes to
 * the calling thread's region. Must be called before any other jansson
 * call. Returns 1 when the regions are in use.
 */
int json_arena_scoped(void);

/* Opens a scope on the calling thread (no-op when regions are not used). */
void json_arena_begin(void);

/*
 * Closes the calling thread's scope and forgets every json value made in
 * it: none may be used afterwards.
 */
void json_arena_end(void);

/*
 * json_decref(value), except inside a scope, where everything made in it
 * goes at json_arena_end() and walking `value` to free it would be work
 * for nothing. `value` must hold nothing made outside the scope.
 */
void json_arena_drop(json_t *value);

/* 1 when jansson allocates from the region. */
int json_arena_active(void);

/*
 * Forgets every json value allocated since the last reset: none may be
 * used afterwards (and none may be decref'd: drop the pointers instead).
 * Keeps one chunk for the next document.
 */
void json_arena_reset(void);

#endif
