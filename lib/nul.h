/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nul.h - strings holding NUL, through the rules and back.
 *
 * A JSON string may hold U+0000 ("\u0000"): the API server sends such an
 * object (an annotation, an env value) to the webhook, and kubectl reads
 * such a manifest. The rules, the messages and the logs work on C
 * strings, in which a NUL would end the string early: a value would be
 * read short, and compared, normalised or quoted wrong.
 *
 * So while the rules run, every string stands encoded: NUL becomes the
 * two noncharacters U+FDD0 U+FDD1 (code points Unicode keeps for a
 * program's internal use), and U+FDD0 itself becomes U+FDD0 U+FDD0, so
 * that the encoding can be undone whatever the input holds. A NUL then
 * matches nothing a rule looks for, and a value derived from it (a label
 * value normalised, a list split) keeps what follows it. What the rules
 * produce is decoded: in values (a patch, a migrated file) the pair is
 * NUL again; in text for people (findings, warnings, logs) it reads
 * "\u0000". Only what holds a NUL is encoded at all.
 */
#ifndef GPUMEND_NUL_H
#define GPUMEND_NUL_H

#include <stddef.h>
#include <jansson.h>

/*
 * 1 when the JSON text text[0..len) has a \u0000 escape (a real escape,
 * not an escaped backslash followed by "u0000").
 */
int nul_text_has(const char *text, size_t len);

/*
 * 0 when no key or string read from the YAML or JSON text text[0..len)
 * can hold a NUL or U+FDD0, which come only from an escape (a backslash)
 * or their own bytes (a NUL, which YAML refuses anyway, or EF B7 90): the
 * text has none of '\\', NUL and 0xEF. 1 otherwise.
 */
int nul_source_may_hold(const char *text, size_t len);

/*
 * A new copy of the JSON text text[0..len) in which the strings stand
 * encoded: each \u0000 escape becomes \ufdd0\ufdd1, each U+FDD0 (raw or
 * escaped) is doubled. Its length in *out_len; NULL when out of memory.
 */
char *nul_text_encode(const char *text, size_t len, size_t *out_len);

/*
 * Encodes, in place, every string value and key of `value` that holds a
 * NUL or U+FDD0; returns 1 when one did (the rest is as it was), 0 when
 * none did (nothing changed), -1 when out of memory.
 */
int nul_json_encode(json_t *value);

/* Decodes every string value and key of `value` in place; 0 or -1. */
int nul_json_decode(json_t *value);

/*
 * Decodes `text` in place: the pair becomes the six characters \u0000,
 * and U+FDD0 U+FDD0 one U+FDD0 (never longer). In JSON text (a patch) that
 * is the escape of NUL; in text for people (a message, a warning, a log
 * field) it shows where the NUL was.
 */
void nul_text_decode(char *text);

#endif
