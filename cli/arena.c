/*
 * arena.c - the region allocator behind jansson in the CLI.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "arena.h"

#define CHUNK_SIZE (1u << 20)
#define ALIGN 16

struct chunk {
	struct chunk *next;
	size_t size, used;
	/* the memory follows, aligned */
	_Alignas(ALIGN) unsigned char data[];
};

static struct chunk *chunks; /* the newest first */
static int active;

#if !defined(__SANITIZE_ADDRESS__)
static void *arena_malloc(size_t size)
{
	struct chunk *c = chunks;
	size_t need = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	if (need < size)
		return NULL;
	if (!c || c->size - c->used < need) {
		size_t bytes = need > CHUNK_SIZE ? need : CHUNK_SIZE;

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

static void arena_free(void *ptr)
{
	(void)ptr; /* freed with the region */
}
#endif

int json_arena_enable(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#else
	json_set_alloc_funcs(arena_malloc, arena_free);
	active = 1;
	return 1;
#endif
}

int json_arena_active(void)
{
	return active;
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
