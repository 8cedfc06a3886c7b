/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.c - a main() for the fuzz targets outside libFuzzer: runs
 * LLVMFuzzerTestOneInput() once on each file named on the command line.
 * Linked with one target and the objects of an ordinary (or sanitizer)
 * build, it replays the regression cases in `make test`; a property that
 * does not hold aborts (see fuzz.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Reads the whole file into a buffer of exactly its size. */
static unsigned char *replay_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL, *grown;
	size_t alloc = 0, n;

	*len = 0;
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path,
			strerror(errno));
		return NULL;
	}
	for (;;) {
		if (*len == alloc) {
			alloc = alloc ? alloc * 2 : 65536;
			if (!(grown = realloc(data, alloc)))
				goto out_fail;
			data = grown;
		}
		n = fread(data + *len, 1, alloc - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		goto out_fail;
	fclose(f);
	/* exactly the input's size, so that reads past it are caught */
	grown = malloc(*len ? *len : 1);
	if (!grown)
		goto out_free;
	memcpy(grown, data, *len);
	free(data);
	return grown;
out_fail:
	fclose(f);
out_free:
	fprintf(stderr, "replay: cannot read '%s'\n", path);
	free(data);
	return NULL;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc < 2) {
		fputs("usage: replay FILE...\n", stderr);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		size_t len;
		unsigned char *data = replay_read(argv[i], &len);

		if (!data) {
			failed = 1;
			continue;
		}
		LLVMFuzzerTestOneInput(data, len);
		free(data);
	}
	return failed ? 2 : 0;
}
