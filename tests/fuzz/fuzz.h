/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz.h - what the libFuzzer targets share: the configurations they run
 * with, and the checks that turn a wrong answer into a crash.
 *
 * Every target defines LLVMFuzzerTestOneInput(). Built with
 * -fsanitize=fuzzer, libFuzzer drives it; built with tests/fuzz/replay.c
 * (a plain main()), it replays files, which is how the regression cases run
 * in `make test` against the ordinary build's objects. A property that does
 * not hold calls fuzz_fail(), which prints what failed and aborts, so that
 * libFuzzer saves the input and the replay driver dies with SIGABRT.
 */
#ifndef GPUMEND_FUZZ_H
#define GPUMEND_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Configurations the targets run every input with. */
enum fuzz_config {
	FUZZ_CONFIG_DEFAULT,  /* the built-in defaults */
	FUZZ_CONFIG_MUTATE,   /* every rule that can mutate does; hami; models */
	FUZZ_CONFIG_DENY,     /* deny modes, mps, failurePolicy deny */
	FUZZ_CONFIG_SHARED,   /* mps on nvidia.com/gpu, other label names */
	FUZZ_CONFIG_COUNT
};

/* The configuration `which`, loaded once through config_text_load(). */
const struct config *fuzz_config_get(enum fuzz_config which);

/* Prints "fuzz: property violated: ..." and aborts. */
void fuzz_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * Reviews `body` with admission_review() and checks the answer: a 400 is
 * one plain text line and happens only when no uid can be read; a 200 is
 * a well-formed AdmissionReview of the request's version and uid whose
 * warnings keep their limits; its patch, when there is one, decodes, applies
 * operation by operation (patch_apply_op, with RFC 6902's preconditions) to
 * the request's object, and the patched object, reviewed again, needs no
 * further patch. Fails (aborts) when any of it does not hold.
 */
void fuzz_check_admission(const struct config *cfg, const char *body,
			  size_t len);

/*
 * Runs `text` through the pipeline of `gpumend migrate` (stream_each, then
 * text_patch_document on each document with operations, findings located
 * with source_locate) and, unless an error was reported, checks that the
 * output parses into the documents the rules produced and that migrating
 * it again changes nothing, byte for byte. Fails when it does not hold.
 */
void fuzz_check_migrate(const struct config *cfg, const char *text,
			size_t len);

/*
 * Runs `text` through the pipeline of `gpumend lint` (stream_each in
 * report-only mode, source_locate on every finding) and writes the
 * findings in every report format; checks positions, one-line messages
 * and that the JSON and SARIF reports parse and hold every finding.
 */
void fuzz_check_lint(const struct config *cfg, const char *text, size_t len);

/*
 * Runs the rules with `cfg` over a few built-in legacy objects and checks
 * that their operations replay onto the original to give the result; used
 * by the config target to exercise the rules under odd configurations.
 */
void fuzz_check_rules(const struct config *cfg);

#endif
