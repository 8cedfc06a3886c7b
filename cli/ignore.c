/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ignore.c - which paths `lint` and `migrate` leave alone: the default
 * excludes, the .gpumendignore file of the root walked and --exclude, all
 * in gitignore syntax.
 */
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
};

struct ignore {
	struct ignore_rule *rules;
	size_t n, cap;
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
	for (size_t i = 0; i < sizeof(ignore_defaults) / sizeof(char *); i++)
		if (ignore_add(ig, ignore_defaults[i]))
			goto out_free;
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
	for (size_t i = 0; i < ig->n; i++)
		free(ig->rules[i].glob);
	free(ig->rules);
	free(ig);
}

int ignore_add(struct ignore *ig, const char *line)
{
	struct ignore_rule rule = { 0 };
	size_t len = strlen(line);
	char *glob;

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
	int c, rc = 0;

	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		msg_error("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	buf_init(&line, 0);
	while (rc == 0) {
		c = getc(f);
		if (c == EOF || c == '\n') {
			rc = ignore_add(ig, line.data ? line.data : "");
			buf_reset(&line);
			if (c == EOF)
				break;
		} else if (buf_putc(&line, (char)c)) {
			msg_error("out of memory");
			rc = -1;
		}
	}
	if (rc == 0 && ferror(f)) {
		msg_error("cannot read '%s': %s", path, strerror(errno));
		rc = -1;
	}
	buf_free(&line);
	fclose(f);
	return rc;
}

int ignore_match(const struct ignore *ig, const char *rel, int is_dir)
{
	const char *base = strrchr(rel, '/');
	int excluded = 0;

	base = base ? base + 1 : rel;
	/* the last rule that matches decides, as in git */
	for (size_t i = ig->n; i-- > 0;) {
		const struct ignore_rule *r = &ig->rules[i];

		if (r->dir_only && !is_dir)
			continue;
		if (glob_match(r->glob, r->glob, r->anchored ? rel : base)) {
			excluded = !r->negate;
			break;
		}
	}
	return excluded;
}

int ignore_path(const struct ignore *ig, const char *rel)
{
	char *copy = strdup(rel);
	int excluded = 0;

	if (!copy)
		return ignore_match(ig, rel, 0);
	/* a file in an excluded directory is excluded, whatever follows */
	for (char *slash = strchr(copy, '/'); slash && !excluded;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (*copy)
			excluded = ignore_match(ig, copy, 1);
		*slash = '/';
	}
	if (!excluded)
		excluded = ignore_match(ig, copy, 0);
	free(copy);
	return excluded;
}
