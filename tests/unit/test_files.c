/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_files.c - the atomic writes of lib/files.c in their three modes:
 * what each does with a file that is there, one that is not, and one
 * that appears while the new text is written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "harness.h"

struct atomic_case {
	enum atomic_how how;
	const char *before;     /* the file's text before, NULL: no file */
	const char *meanwhile;  /* written to it between begin and commit */
	int begin_ok, commit_ok;
	const char *after;      /* the file's text after, NULL: no file */
};

static const struct atomic_case atomic_cases[] = {
	{ ATOMIC_REPLACE, "old", NULL, 1, 1, "new" },
	{ ATOMIC_REPLACE, NULL, NULL, 0, 0, NULL },
	{ ATOMIC_WRITE, "old", NULL, 1, 1, "new" },
	{ ATOMIC_WRITE, NULL, NULL, 1, 1, "new" },
	{ ATOMIC_CREATE, NULL, NULL, 1, 1, "new" },
	{ ATOMIC_CREATE, "old", NULL, 0, 0, "old" },
	/* a file that appears meanwhile is kept by a create alone */
	{ ATOMIC_CREATE, NULL, "other", 1, 0, "other" },
	{ ATOMIC_WRITE, NULL, "other", 1, 1, "new" },
};

static int text_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* The text of `path` (NULL: none) is `want`. */
static int text_is(const char *path, const char *want)
{
	char got[64] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return want == NULL;
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	return want && strcmp(got, want) == 0;
}

/* The entries of `dir` other than . and .., counted. */
static int entries(const char *dir)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

TEST(atomic_writes_replace_write_and_create)
{
	char dir[] = "/tmp/gpumend-unit-files.XXXXXX";
	char path[64];
	int saved_err = dup(2), null = open("/dev/null", O_WRONLY);

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/out.yaml", dir);
	/* the failures say why on stderr: not in the test's output */
	fflush(stderr);
	dup2(null, 2);
	for (size_t i = 0; i < sizeof(atomic_cases) / sizeof(*atomic_cases);
	     i++) {
		const struct atomic_case *c = &atomic_cases[i];
		struct atomic_file af;
		int begun, committed = 0;

		unlink(path);
		if (c->before && text_put(path, c->before) != 0)
			break;
		begun = atomic_begin(&af, path, 0644, c->how) == 0;
		if (begun) {
			if (c->meanwhile)
				text_put(path, c->meanwhile);
			committed = atomic_write(&af, "new", 3) == 0 &&
				    atomic_commit(&af) == 0;
		}
		if (begun != c->begin_ok || committed != c->commit_ok ||
		    !text_is(path, c->after) ||
		    entries(dir) != (c->after ? 1 : 0)) {
			fprintf(stdout, "  atomic case %zu: begin %d, commit %d\n",
				i, begun, committed);
			(*failures)++;
		}
	}
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	close(null);
	unlink(path);
	CHECK(rmdir(dir) == 0);
}
