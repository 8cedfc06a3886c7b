/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walk.c - walking the paths lint and migrate are given: directories
 * searched for manifests and chart templates, the ignore rules applied.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
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

/* One walk from a root: what it calls, what it leaves out, and what it
 * found under the root named. */
struct walk {
	struct visited v;
	const struct ignore *ig;
	const struct walk_options *wo;
	const struct walk_calls *calls;
	size_t read;         /* files read as manifests */
	size_t skipped;      /* files found and not read as manifests */
	size_t left_out;     /* entries the ignore rules left out */
	int failed;          /* a call failed: the walk stops */
};

/* A path that cannot be read, or yields nothing: said (the message names
 * it), and handed over. -1 when the call fails. */
static int walk_problem(const struct walk *w, const char *path,
			const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int walk_problem(const struct walk *w, const char *path,
			const char *fmt, ...)
{
	va_list ap;
	char why[512];

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	msg_error("%s", why);
	return w->calls->problem(w->calls->arg, path, why);
}

/* With --verbose: why `path` is left alone. */
static void walk_said(const struct walk *w, const char *path,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void walk_said(const struct walk *w, const char *path,
		      const char *fmt, ...)
{
	va_list ap;
	char why[512];

	if (!w->wo || !w->wo->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	msg_note("'%s' %s", path, why);
}

/* Hands `path` to the file call, counting what it read. */
static int walk_file(struct walk *w, const char *path, int named)
{
	int rc = w->calls->file(w->calls->arg, path, named);

	if (rc > 0)
		w->read++;
	else if (rc == 0)
		w->skipped++;
	return rc < 0 ? -1 : 0;
}

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

	if (depth > 64)
		return walk_problem(w, dir, "'%s': directories nested too deeply",
				    dir);
	d = opendir(dir);
	if (!d)
		return walk_problem(w, dir, "cannot open directory '%s': %s",
				    dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.') {
			/* ., .., and hidden files such as .git */
			if (w->wo->verbose && strcmp(de->d_name, ".") &&
			    strcmp(de->d_name, "..")) {
				char *hidden = path_join_new(dir, de->d_name);

				walk_said(w, hidden ? hidden : de->d_name,
					  "left out: hidden");
				free(hidden);
			}
			continue;
		}
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
		const char *why;
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
			if (errno != ENOENT || walk_wants(path, names[i]))
				rc = walk_problem(w, path, "cannot stat '%s': %s",
						  path, strerror(errno));
		} else if ((why = ignore_why(w->ig, child,
					     S_ISDIR(st.st_mode))) != NULL) {
			/* excluded: neither read nor walked */
			w->left_out++;
			walk_said(w, path, "left out by %s", why);
		} else if (S_ISDIR(st.st_mode)) {
			seen = visited_add(&w->v, &st);
			if (seen < 0)
				rc = -1;
			else if (!seen)
				rc = walk_dir(w, path, child, depth + 1);
			else
				walk_said(w, path, "not walked: reached already");
		} else if (!walk_wants(path, names[i])) {
			walk_said(w, path, "not read: not *.yaml, *.yml or *.json");
		} else if (!S_ISREG(st.st_mode)) {
			walk_said(w, path, "not read: not a regular file");
		} else {
			rc = walk_file(w, path, 0);
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

/*
 * Rules of the defaults, `dir`'s ignore file and --exclude; NULL when out
 * of memory (said) or when the ignore file cannot be read (*unreadable
 * then holds its path, to free, and *why the errno).
 */
static struct ignore *walk_rules_new(const struct walk_options *wo,
				     const char *dir, char **unreadable,
				     int *why)
{
	struct ignore *ig = ignore_new(NULL, 0);
	char *file = path_join_new(dir, IGNORE_FILE);

	*unreadable = NULL;
	*why = 0;
	if (!ig || !file) {
		if (!file)
			msg_error("out of memory");
		goto out_free;
	}
	/* the file between the defaults and the command line: each may
	 * undo what comes before it with "!" */
	if (ignore_read(ig, file) != 0) {
		*why = errno;
		if (errno != ENOMEM) {
			*unreadable = file;
			file = NULL;
		}
		goto out_free;
	}
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

/* The rule that excludes a named file (current directory's rules), or
 * NULL. */
static const char *named_excluded(const struct ignore *ig, const char *path)
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

		return ignore_why(ig, base ? base + 1 : path, 0);
	}
	return ignore_path_why(ig, rel);
}

/* What a named directory yielded, when it yielded no manifest. */
static int walk_empty(struct walk *w, const char *dir)
{
	char parts[256] = "";
	size_t n = 0;

	if (w->read || w->wo->allow_empty)
		return 0;
	if (w->skipped)
		n += (size_t)snprintf(parts + n, sizeof(parts) - n,
				      "%zu file%s skipped (no manifest that parses)",
				      w->skipped, w->skipped == 1 ? "" : "s");
	if (w->left_out && n < sizeof(parts))
		n += (size_t)snprintf(parts + n, sizeof(parts) - n,
				      "%s%zu path%s left out by the ignore rules",
				      n ? ", " : "", w->left_out,
				      w->left_out == 1 ? "" : "s");
	if (!n)
		snprintf(parts, sizeof(parts), "no *.yaml, *.yml or *.json file");
	return walk_problem(w, dir, "'%s' holds no manifest: %s; --allow-empty accepts that",
			    dir, parts);
}

/* Standard input, which must hold a document unless --allow-empty. */
static int walk_stdin(struct walk *w)
{
	int rc = w->calls->file(w->calls->arg, "-", 1);

	if (rc == 0 && !w->wo->allow_empty)
		return walk_problem(w, INPUT_STDIN_NAME,
				    "'%s' holds no document; --allow-empty accepts that",
				    INPUT_STDIN_NAME);
	return rc < 0 ? -1 : 0;
}

int paths_walk(char **paths, int n, const struct walk_options *wo,
	       const struct walk_calls *calls)
{
	struct walk w = { .wo = wo, .calls = calls };
	struct ignore *cwd_rules = NULL;
	char *unreadable = NULL;
	const char *why;
	int rc = 0, err;

	if (n == 0)
		return walk_stdin(&w);
	for (int i = 0; rc == 0 && i < n; i++) {
		struct stat st;
		struct ignore *dir_rules;

		if (strcmp(paths[i], "-") == 0) {
			rc = walk_stdin(&w);
			continue;
		}
		if (stat(paths[i], &st) != 0) {
			rc = walk_problem(&w, paths[i], "cannot open '%s': %s",
					  paths[i], strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (visited_add(&w.v, &st) != 0) {
				walk_said(&w, paths[i], "not walked: reached already");
				continue;
			}
			dir_rules = walk_rules_new(wo, paths[i], &unreadable,
						   &err);
			if (!dir_rules) {
				rc = unreadable ?
				     walk_problem(&w, unreadable, "cannot read '%s': %s",
						  unreadable, strerror(err)) : -1;
				free(unreadable);
				continue;
			}
			w.ig = dir_rules;
			w.read = w.skipped = w.left_out = 0;
			rc = walk_dir(&w, paths[i], "", 0);
			if (rc == 0)
				rc = walk_empty(&w, paths[i]);
			ignore_free(dir_rules);
			continue;
		}
		if (!cwd_rules && !(cwd_rules = walk_rules_new(wo, ".",
							       &unreadable,
							       &err))) {
			rc = unreadable ? walk_problem(&w, unreadable,
						       "cannot read '%s': %s",
						       unreadable, strerror(err)) : -1;
			free(unreadable);
			break;
		}
		if ((why = named_excluded(cwd_rules, paths[i])) != NULL)
			walk_said(&w, paths[i], "left out by %s", why);
		else
			rc = walk_file(&w, paths[i], 1);
	}
	ignore_free(cwd_rules);
	free(w.v.dev);
	free(w.v.ino);
	return rc;
}
