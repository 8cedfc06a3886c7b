/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walk.c - walking the paths lint and migrate are given: directories
 * searched for manifests and chart templates, the ignore rules applied.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "helm.h"
#include "msg.h"

static int has_manifest_suffix(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

struct visited {
	dev_t *dev;
	ino_t *ino;
	size_t n, cap;
};

static int visited_add(struct visited *v, const struct stat *st)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->dev[i] == st->st_dev && v->ino[i] == st->st_ino)
			return 1;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		dev_t *dev = realloc(v->dev, cap * sizeof(*dev));
		ino_t *ino;

		if (!dev)
			return -1;
		v->dev = dev;
		ino = realloc(v->ino, cap * sizeof(*ino));
		if (!ino)
			return -1;
		v->ino = ino;
		v->cap = cap;
	}
	v->dev[v->n] = st->st_dev;
	v->ino[v->n] = st->st_ino;
	v->n++;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One walk from a root: what it calls, what it leaves out. */
struct walk {
	struct visited v;
	const struct ignore *ig;
	path_fn fn;
	void *arg;
	int *errors;
};

/* `a` and `b` joined by a '/' (none when `a` is "" or ends with one). */
static char *path_join_new(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *path = malloc(la + strlen(b) + 2);

	if (path)
		sprintf(path, "%s%s%s", a,
			la == 0 || a[la - 1] == '/' ? "" : "/", b);
	return path;
}

/* 1 when the walk would read a file called `name` at `path`. */
static int walk_wants(const char *path, const char *name)
{
	return has_manifest_suffix(name) || chart_walk_wants(path);
}

/* Walks `dir`, which is `rel` from the walk's root ("" for the root). */
static int walk_dir(struct walk *w, const char *dir, const char *rel,
		    int depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (depth > 64) {
		msg_error("'%s': directories nested too deeply", dir);
		(*w->errors)++;
		return 0;
	}
	d = opendir(dir);
	if (!d) {
		msg_error("cannot open directory '%s': %s", dir, strerror(errno));
		(*w->errors)++;
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue; /* ., .., and hidden files such as .git */
		if (n == cap) {
			char **grown;

			cap = cap ? cap * 2 : 32;
			grown = realloc(names, cap * sizeof(*grown));
			if (!grown) {
				rc = -1;
				break;
			}
			names = grown;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc) {
		msg_error("out of memory");
		goto out_free;
	}
	/* an empty directory has no array at all: qsort wants one */
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct stat st;
		char *path = path_join_new(dir, names[i]);
		char *child = path_join_new(rel, names[i]);
		int seen;

		if (!path || !child) {
			free(path);
			free(child);
			msg_error("out of memory");
			rc = -1;
			break;
		}
		if (stat(path, &st) != 0) {
			/* gone since it was listed (an editor's swap file):
			 * a problem only for a file that would be read */
			if (errno != ENOENT || walk_wants(path, names[i])) {
				msg_error("cannot stat '%s': %s", path,
					  strerror(errno));
				(*w->errors)++;
			}
		} else if (ignore_match(w->ig, child, S_ISDIR(st.st_mode))) {
			/* excluded: neither read nor walked */
		} else if (S_ISDIR(st.st_mode)) {
			seen = visited_add(&w->v, &st);
			if (seen < 0)
				rc = -1;
			else if (!seen)
				rc = walk_dir(w, path, child, depth + 1);
		} else if (S_ISREG(st.st_mode) && walk_wants(path, names[i])) {
			rc = w->fn(w->arg, path, 0);
		}
		free(path);
		free(child);
	}
out_free:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/*
 * `path` as the current directory's ignore rules see it: without "./",
 * and relative when it is under the current directory; NULL when it is
 * outside (rules anchored at the root cannot match it then).
 */
static const char *path_from_cwd(const char *path, const char *cwd)
{
	size_t n = strlen(cwd);

	if (path[0] == '/') {
		if (strncmp(path, cwd, n) != 0 || path[n] != '/')
			return NULL;
		path += n + 1;
	}
	while (path[0] == '.' && path[1] == '/')
		for (path += 2; *path == '/'; path++)
			;
	return strncmp(path, "../", 3) == 0 ? NULL : path;
}

/* Rules of the defaults, `dir`'s ignore file and --exclude; NULL: said. */
static struct ignore *walk_rules_new(const struct walk_options *wo,
				     const char *dir)
{
	struct ignore *ig = ignore_new(NULL, 0);
	char *file = path_join_new(dir, IGNORE_FILE);

	if (!ig || !file) {
		if (!file)
			msg_error("out of memory");
		goto out_free;
	}
	/* the file between the defaults and the command line: each may
	 * undo what comes before it with "!" */
	if (ignore_read(ig, file) != 0)
		goto out_free;
	for (size_t i = 0; wo && i < wo->n_excludes; i++)
		if (ignore_add(ig, wo->excludes[i]) != 0)
			goto out_free;
	free(file);
	return ig;
out_free:
	free(file);
	ignore_free(ig);
	return NULL;
}

/* 1 when a named file is excluded by the current directory's rules. */
static int named_excluded(const struct ignore *ig, const char *path)
{
	char cwd[PATH_MAX];
	const char *rel = path;

	if (path[0] == '/')
		rel = getcwd(cwd, sizeof(cwd)) ? path_from_cwd(path, cwd) : NULL;
	else
		rel = path_from_cwd(path, "");
	if (!rel) {
		/* outside the current directory: only its own name is
		 * known for sure to the rules that are not anchored */
		const char *base = strrchr(path, '/');

		return ignore_match(ig, base ? base + 1 : path, 0);
	}
	return ignore_path(ig, rel);
}

int paths_walk(char **paths, int n, const struct walk_options *wo,
	       path_fn fn, void *arg, int *errors)
{
	struct walk w = { .fn = fn, .arg = arg, .errors = errors };
	struct ignore *cwd_rules = NULL;
	int rc = 0;

	if (n == 0)
		return fn(arg, "-", 1);
	for (int i = 0; rc == 0 && i < n; i++) {
		struct stat st;
		struct ignore *dir_rules;

		if (strcmp(paths[i], "-") == 0) {
			rc = fn(arg, "-", 1);
			continue;
		}
		if (stat(paths[i], &st) != 0) {
			msg_error("cannot open '%s': %s", paths[i],
				  strerror(errno));
			(*errors)++;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (visited_add(&w.v, &st) != 0)
				continue;
			dir_rules = walk_rules_new(wo, paths[i]);
			if (!dir_rules) {
				(*errors)++;
				continue;
			}
			w.ig = dir_rules;
			rc = walk_dir(&w, paths[i], "", 0);
			ignore_free(dir_rules);
			continue;
		}
		if (!cwd_rules && !(cwd_rules = walk_rules_new(wo, "."))) {
			(*errors)++;
			break;
		}
		if (!named_excluded(cwd_rules, paths[i]))
			rc = fn(arg, paths[i], 1);
	}
	ignore_free(cwd_rules);
	free(w.v.dev);
	free(w.v.ino);
	return rc;
}
