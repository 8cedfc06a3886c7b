/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - runs every registered unit test. With an argument, runs only the
 * tests whose name contains it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct test {
	const char *name;
	test_fn fn;
};

static struct test tests[512];
static size_t n_tests;

void harness_register(const char *name, test_fn fn)
{
	if (n_tests < sizeof(tests) / sizeof(tests[0]))
		tests[n_tests++] = (struct test){ name, fn };
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	for (size_t i = 0; i < n_tests; i++) {
		int failures = 0;

		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		tests[i].fn(&failures);
		if (failures) {
			printf("not ok - %s\n", tests[i].name);
			failed++;
		} else {
			printf("ok - %s\n", tests[i].name);
			passed++;
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
