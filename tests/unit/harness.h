/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * harness.h - a minimal unit test runner. Each TEST() registers itself; the
 * runner (tests/unit/main.c) runs them all and ends with the line
 * "unit: N passed, N failed".
 */
#ifndef GPUMEND_HARNESS_H
#define GPUMEND_HARNESS_H

#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(int *failures);

void harness_register(const char *name, test_fn fn);

#define TEST(name)                                                        \
	static void test_##name(int *failures);                           \
	__attribute__((constructor)) static void register_##name(void)    \
	{                                                                 \
		harness_register(#name, test_##name);                     \
	}                                                                 \
	static void test_##name(int *failures)

/* Fails the test (and goes on) when `cond` is false. */
#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "  %s:%d: check failed: %s\n",    \
				__FILE__, __LINE__, #cond);               \
			(*failures)++;                                    \
		}                                                         \
	} while (0)

#define CHECK_STR(got, want)                                              \
	do {                                                              \
		const char *g_ = (got), *w_ = (want);                     \
		if (!g_ || !w_ || strcmp(g_, w_) != 0) {                  \
			fprintf(stderr, "  %s:%d: got '%s', want '%s'\n", \
				__FILE__, __LINE__, g_ ? g_ : "(null)",   \
				w_ ? w_ : "(null)");                      \
			(*failures)++;                                    \
		}                                                         \
	} while (0)

#endif
