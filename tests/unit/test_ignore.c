/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ignore.c - the ignore rules of lint and migrate: gitignore's
 * syntax (as git 2.39 reads .gitignore) over paths relative to the root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "harness.h"

struct ignore_case {
	const char *rules;      /* lines, after the defaults */
	const char *path;
	int is_dir;
	int whole_path;         /* 1: ignore_path(), 0: ignore_match() */
	int excluded;
};

static const struct ignore_case ignore_cases[] = {
	/* the defaults, at any depth, directories only */
	{ "", "node_modules", 1, 0, 1 },
	{ "", "web/node_modules", 1, 0, 1 },
	{ "", "node_modules", 0, 0, 0 },
	{ "", "vendor", 1, 0, 1 },
	{ "", ".git", 1, 0, 1 },
	{ "", "web/node_modules/x/deploy.yaml", 0, 1, 1 },
	{ "", "deploy/app.yaml", 0, 1, 0 },
	/* "!" takes a default back */
	{ "!vendor/", "vendor", 1, 0, 0 },
	{ "!vendor/", "node_modules", 1, 0, 1 },
	/* a name without '/': at any depth, files and directories */
	{ "*.json", "tsconfig.json", 0, 0, 1 },
	{ "*.json", "a/b/package.json", 0, 0, 1 },
	{ "*.json", "a.yaml", 0, 0, 0 },
	{ "secret", "a/secret", 1, 0, 1 },
	{ "secret", "a/secret", 0, 0, 1 },
	/* a '/' anchors the pattern at the root */
	{ "/charts", "charts", 1, 0, 1 },
	{ "/charts", "x/charts", 1, 0, 0 },
	{ "deploy/legacy", "deploy/legacy", 1, 0, 1 },
	{ "deploy/legacy", "x/deploy/legacy", 1, 0, 0 },
	{ "deploy/*.yaml", "deploy/a.yaml", 0, 0, 1 },
	{ "deploy/*.yaml", "deploy/sub/a.yaml", 0, 0, 0 },
	/* "**" */
	{ "**/fixtures", "fixtures", 1, 0, 1 },
	{ "**/fixtures", "a/b/fixtures", 1, 0, 1 },
	{ "docs/**", "docs/a/b.yaml", 0, 0, 1 },
	{ "docs/**", "docs", 1, 0, 0 },
	{ "a/**/b.yaml", "a/b.yaml", 0, 0, 1 },
	{ "a/**/b.yaml", "a/x/y/b.yaml", 0, 0, 1 },
	{ "a/**/b.yaml", "ab/b.yaml", 0, 0, 0 },
	/* '?', sets, quoting */
	{ "v?.yaml", "v1.yaml", 0, 0, 1 },
	{ "v?.yaml", "v10.yaml", 0, 0, 0 },
	{ "v[0-9].yaml", "v7.yaml", 0, 0, 1 },
	{ "v[!0-9].yaml", "v7.yaml", 0, 0, 0 },
	{ "v[!0-9].yaml", "vx.yaml", 0, 0, 1 },
	{ "v[.yaml", "v[.yaml", 0, 0, 1 },
	{ "\\#x.yaml", "#x.yaml", 0, 0, 1 },
	{ "\\!x.yaml", "!x.yaml", 0, 0, 1 },
	{ "a\\*.yaml", "a*.yaml", 0, 0, 1 },
	{ "a\\*.yaml", "ab.yaml", 0, 0, 0 },
	/* comments, blanks, trailing blanks, CR */
	{ "# x.yaml\n\n   \nx.yaml   \ny.yaml\r", "x.yaml", 0, 0, 1 },
	{ "# x.yaml\n\n   \nx.yaml   \ny.yaml\r", "y.yaml", 0, 0, 1 },
	{ "# x.yaml", "# x.yaml", 0, 0, 0 },
	/* the last rule that matches decides */
	{ "*.yaml\n!keep.yaml", "keep.yaml", 0, 0, 0 },
	{ "!keep.yaml\n*.yaml", "keep.yaml", 0, 0, 1 },
	/* a file under an excluded directory stays excluded */
	{ "build/\n!build/keep.yaml", "build/keep.yaml", 0, 1, 1 },
	{ "*.yaml\n!*/", "sub/x.yaml", 0, 1, 1 },
};

TEST(ignore_rules_match_as_gitignore)
{
	for (size_t i = 0; i < sizeof(ignore_cases) / sizeof(ignore_cases[0]);
	     i++) {
		const struct ignore_case *c = &ignore_cases[i];
		struct ignore *ig = ignore_new(NULL, 0);
		char *lines = strdup(c->rules), *line, *save = NULL;
		int got;

		CHECK(ig && lines);
		if (!ig || !lines) {
			ignore_free(ig);
			free(lines);
			return;
		}
		for (line = strtok_r(lines, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			CHECK(ignore_add(ig, line) == 0);
		got = c->whole_path ? ignore_path(ig, c->path)
				    : ignore_match(ig, c->path, c->is_dir);
		if (got != c->excluded)
			fprintf(stderr, "  case %zu: rules '%s', path '%s': %d\n",
				i, c->rules, c->path, got);
		CHECK(got == c->excluded);
		ignore_free(ig);
		free(lines);
	}
}

TEST(ignore_excludes_come_after_the_defaults)
{
	char *excludes[] = { "*.json", "!node_modules/" };
	struct ignore *ig = ignore_new(excludes, 2);

	CHECK(ig != NULL);
	if (!ig)
		return;
	CHECK(ignore_match(ig, "tsconfig.json", 0) == 1);
	CHECK(ignore_match(ig, "node_modules", 1) == 0);
	CHECK(ignore_match(ig, "vendor", 1) == 1);
	ignore_free(ig);
	ignore_free(NULL);
}
