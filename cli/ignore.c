/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ignore.c - which paths `lint` and `migrate` leave alone: the default
 * excludes, the .gpumendignore file of the root walked and --exclude, all
 * in gitignore syntax.
 */
#define _GNU_SOURCE     /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "msg.h"

/* What every repository holds and no one wants linted. */
static const char *const ignore_defaults[] = {
	"node_modules/", "vendor/", ".git/",
};

struct ignore_rule {
	char *glob;          /* without '!', leading and trailing '/' */
	int negate;          /* "!glob": included again */
	int dir_only;        /* "glob/": directories only */
	int anchored;        /* held a '/': matched from the root */
	char *said;          /* "'GLOB' (WHERE)", for --verbose */
};

struct ignore {
	struct ignore_rule *rules;
	size_t n, cap;
	/* where ignore_add()'s lines come from: "a default", "--exclude",
	 * or the ignore file being read and the number of its line */
	const char *from;
	int from_line;
};

/*
 * Matches `c` against the bracket expression at *p ("[...]"), moving *p
 * past it. 1 or 0; -1 when there is no closing ']' (the '[' is then a
 * character like any other).
 */
static int bracket_match(const char **p, char c)
{
	const char *q = *p + 1;
	int negate = 0, match = 0;

	if (*q == '!' || *q == '^') {
		negate = 1;
		q++;
	}
	/* a ']' first is one of the characters */
	if (*q == ']') {
		match = c == ']';
		q++;
	}
	while (*q && *q != ']') {
		char lo = *q, hi;

		if (lo == '\\' && q[1])
			lo = *++q;
		hi = lo;
		if (q[1] == '-' && q[2] && q[2] != ']') {
			hi = q[2];
			q += 2;
		}
		if (c >= lo && c <= hi)
			match = 1;
		q++;
	}
	if (*q != ']')
		return -1;
	*p = q + 1;
	return match != negate;
}

/*
 * gitignore's globs: '*' and '?' stop at '/', "**" as a whole component
 * matches any number of directories, '[...]' a set, '\\' quotes. `base`
 * is the start of the pattern, to tell a component's start.
 */
static int glob_match(const char *base, const char *p, const char *s)
{
	while (*p) {
		if (p[0] == '*' && p[1] == '*' && (p == base || p[-1] == '/') &&
		    (p[2] == '/' || p[2] == '\0')) {
			if (p[2] == '\0')
				return 1;
			/* "**" and its '/': zero or more directories */
			p += 3;
			for (;;) {
				if (glob_match(base, p, s))
					return 1;
				s = strchr(s, '/');
				if (!s)
					return 0;
				s++;
			}
		}
		switch (*p) {
		case '*':
			while (*p == '*')
				p++;
			for (;;) {
				if (glob_match(base, p, s))
					return 1;
				if (*s == '\0' || *s == '/')
					return 0;
				s++;
			}
		case '?':
			if (*s == '\0' || *s == '/')
				return 0;
			p++;
			s++;
			break;
		case '[': {
			const char *q = p;
			int m = *s && *s != '/' ? bracket_match(&q, *s) : 0;

			if (m == 0)
				return 0;
			if (m > 0) {
				p = q;
				s++;
				break;
			}
			/* no closing ']': a plain '[' */
			if (*s != '[')
				return 0;
			p++;
			s++;
			break;
		}
		case '\\':
			if (p[1])
				p++;
			/* fall through */
		default:
			if (*p != *s)
				return 0;
			p++;
			s++;
			break;
		}
	}
	return *s == '\0';
}

struct ignore *ignore_new(char **excludes, size_t n_excludes)
{
	struct ignore *ig = calloc(1, sizeof(*ig));

	if (!ig)
		goto out_nomem;
	ig->from = "a default";
	for (size_t i = 0; i < sizeof(ignore_defaults) / sizeof(char *); i++)
		if (ignore_add(ig, ignore_defaults[i]))
			goto out_free;
	ig->from = "--exclude";
	for (size_t i = 0; i < n_excludes; i++)
		if (ignore_add(ig, excludes[i]))
			goto out_free;
	return ig;
out_free:
	ignore_free(ig);
	return NULL;
out_nomem:
	msg_error("out of memory");
	return NULL;
}

void ignore_free(struct ignore *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->n; i++) {
		free(ig->rules[i].glob);
		free(ig->rules[i].said);
	}
	free(ig->rules);
	free(ig);
}

int ignore_add(struct ignore *ig, const char *line)
{
	struct ignore_rule rule = { 0 };
	size_t len = strlen(line);
	const char *written = line;
	char *glob;
	int said_len;

	/* a line break left by a file written on Windows, then the
	 * trailing blanks that no '\\' quotes */
	if (len && line[len - 1] == '\r')
		len--;
	while (len && line[len - 1] == ' ' &&
	       !(len >= 2 && line[len - 2] == '\\'))
		len--;
	if (len == 0 || line[0] == '#')
		return 0;
	if (line[0] == '!') {
		rule.negate = 1;
		line++;
		len--;
	} else if (line[0] == '\\' && (line[1] == '#' || line[1] == '!')) {
		line++;
		len--;
	}
	if (len && line[len - 1] == '/') {
		rule.dir_only = 1;
		len--;
	}
	if (len && memchr(line, '/', len))
		rule.anchored = 1;
	if (len && line[0] == '/') {
		line++;
		len--;
	}
	if (len == 0)
		return 0;
	if (ig->n == ig->cap) {
		size_t cap = ig->cap ? ig->cap * 2 : 16;
		struct ignore_rule *grown = realloc(ig->rules,
						    cap * sizeof(*grown));

		if (!grown)
			goto out_nomem;
		ig->rules = grown;
		ig->cap = cap;
	}
	glob = strndup(line, len);
	if (!glob)
		goto out_nomem;
	rule.glob = glob;
	/* as written (but for a Windows line break), and where */
	said_len = (int)strcspn(written, "\r");
	if (asprintf(&rule.said, ig->from_line ? "'%.*s' (%s:%d)" :
		     "'%.*s' (%s)", said_len, written,
		     ig->from ? ig->from : "--exclude", ig->from_line) < 0) {
		free(glob);
		goto out_nomem;
	}
	ig->rules[ig->n++] = rule;
	return 0;
out_nomem:
	msg_error("out of memory");
	return -1;
}

int ignore_read(struct ignore *ig, const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf line;
	int c, rc = 0, saved;

	if (!f)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	buf_init(&line, 0);
	ig->from = path;
	ig->from_line = 1;
	while (rc == 0) {
		c = getc(f);
		if (c == EOF && ferror(f)) {
			rc = -1;
		} else if (c == EOF || c == '\n') {
			rc = ignore_add(ig, line.data ? line.data : "");
			buf_reset(&line);
			ig->from_line++;
			if (rc)
				errno = ENOMEM;
			if (c == EOF)
				break;
		} else if (buf_putc(&line, (char)c)) {
			msg_error("out of memory");
			errno = ENOMEM;
			rc = -1;
		}
	}
	saved = errno;
	buf_free(&line);
	fclose(f);
	/* the path is the caller's: what comes next is --exclude */
	ig->from = "--exclude";
	ig->from_line = 0;
	errno = saved;
	return rc;
}

/* The rule that decides for `rel` (the last that matches), or NULL. */
static const struct ignore_rule *deciding_rule(const struct ignore *ig,
					       const char *rel, int is_dir)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	/* the last rule that matches decides, as in git */
	for (size_t i = ig->n; i-- > 0;) {
		const struct ignore_rule *r = &ig->rules[i];

		if (r->dir_only && !is_dir)
			continue;
		if (glob_match(r->glob, r->glob, r->anchored ? rel : base))
			return r;
	}
	return NULL;
}

const char *ignore_why(const struct ignore *ig, const char *rel, int is_dir)
{
	const struct ignore_rule *r = deciding_rule(ig, rel, is_dir);

	return r && !r->negate ? r->said : NULL;
}

int ignore_match(const struct ignore *ig, const char *rel, int is_dir)
{
	return ignore_why(ig, rel, is_dir) != NULL;
}

const char *ignore_path_why(const struct ignore *ig, const char *rel)
{
	char *copy = strdup(rel);
	const char *why = NULL;

	if (!copy)
		return ignore_why(ig, rel, 0);
	/* a file in an excluded directory is excluded, whatever follows */
	for (char *slash = strchr(copy, '/'); slash && !why;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (*copy)
			why = ignore_why(ig, copy, 1);
		*slash = '/';
	}
	if (!why)
		why = ignore_why(ig, copy, 0);
	free(copy);
	return why;
}

int ignore_path(const struct ignore *ig, const char *rel)
{
	return ignore_path_why(ig, rel) != NULL;
}
