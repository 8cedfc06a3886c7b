/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arena.c - the region allocator behind jansson (see arena.h).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "arena.h"

/*
 * Under AddressSanitizer (gcc says so with __SANITIZE_ADDRESS__, clang
 * with __has_feature) jansson keeps malloc, so that use-after-free of json
 * values stays visible; GPUMEND_NO_ARENA=1 does the same for valgrind.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_SANITIZED 1
#endif
#endif

#define CHUNK_SIZE (1u << 20)
/*
 * A thread's scopes start with a chunk it keeps from one scope to the
 * next (one review's values fit in it; given back when the thread ends)
 * and double from there.
 */
#define SCOPE_CHUNK_SIZE (1u << 18)
#define ALIGN 16

struct chunk {
	struct chunk *next;
	size_t size, used;
	/* the memory follows, aligned */
	_Alignas(ALIGN) unsigned char data[];
};

enum arena_mode { ARENA_OFF, ARENA_ALWAYS, ARENA_SCOPED };

static enum arena_mode mode;
static _Thread_local struct chunk *chunks; /* the newest first */
static _Thread_local int in_scope;
static pthread_key_t kept_key;          /* a thread's kept chunk, to free */

#if !defined(ARENA_SANITIZED)
static void *region_malloc(size_t size)
{
	struct chunk *c = chunks;
	size_t need = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	if (need < size)
		return NULL;
	if (!c || c->size - c->used < need) {
		size_t bytes = mode != ARENA_SCOPED ? CHUNK_SIZE :
			       !c ? SCOPE_CHUNK_SIZE :
			       c->size < CHUNK_SIZE ? c->size * 2 : CHUNK_SIZE;

		if (need > bytes)
			bytes = need;
		c = malloc(sizeof(*c) + bytes);
		if (!c)
			return NULL;
		c->size = bytes;
		c->used = 0;
		c->next = chunks;
		chunks = c;
	}
	c->used += need;
	return c->data + c->used - need;
}

static void region_free(void *ptr)
{
	(void)ptr; /* freed with the region */
}

static void *scoped_malloc(size_t size)
{
	struct chunk *c = chunks;
	size_t need = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	if (!in_scope)
		return malloc(size);
	/* the usual case, inline: room in the newest chunk */
	if (c && need >= size && c->size - c->used >= need) {
		c->used += need;
		return c->data + c->used - need;
	}
	return region_malloc(size);
}

/* The regions are turned off for memcheck runs. */
static int arena_refused(void)
{
	const char *off = getenv("GPUMEND_NO_ARENA");

	return off && *off && strcmp(off, "0") != 0;
}

/* Memory of this thread's region is freed with it; the rest is malloc's. */
static void scoped_free(void *ptr)
{
	const unsigned char *p = ptr;

	for (const struct chunk *c = chunks; c; c = c->next)
		if (p >= c->data && p < c->data + c->size)
			return;
	free(ptr);
}
#endif

int json_arena_enable(void)
{
#if defined(ARENA_SANITIZED)
	return 0;
#else
	if (arena_refused())
		return 0;
	json_set_alloc_funcs(region_malloc, region_free);
	mode = ARENA_ALWAYS;
	return 1;
#endif
}

int json_arena_scoped(void)
{
#if defined(ARENA_SANITIZED)
	return 0;
#else
	if (arena_refused())
		return 0;
	if (pthread_key_create(&kept_key, free) != 0)
		return 0;
	json_set_alloc_funcs(scoped_malloc, scoped_free);
	mode = ARENA_SCOPED;
	return 1;
#endif
}

void json_arena_begin(void)
{
	in_scope = mode == ARENA_SCOPED;
}

void json_arena_end(void)
{
	if (!in_scope)
		return;
	in_scope = 0;
	/* the first chunk stays for the next scope, the others go */
	while (chunks && chunks->next) {
		struct chunk *next = chunks->next;

		free(chunks);
		chunks = next;
	}
	if (chunks) {
		chunks->used = 0;
		if (pthread_getspecific(kept_key) != chunks)
			pthread_setspecific(kept_key, chunks);
	}
}

void json_arena_drop(json_t *value)
{
	if (!in_scope)
		json_decref(value);
}

int json_arena_active(void)
{
	return mode == ARENA_ALWAYS;
}

void json_arena_reset(void)
{
	struct chunk *keep = NULL;

	while (chunks) {
		struct chunk *next = chunks->next;

		/* keep one ordinary chunk; large ones go back to the system */
		if (!keep && chunks->size == CHUNK_SIZE) {
			keep = chunks;
			keep->next = NULL;
		} else {
			free(chunks);
		}
		chunks = next;
	}
	if (keep)
		keep->used = 0;
	chunks = keep;
}
