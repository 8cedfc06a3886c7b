/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_write.h - JSON text written straight into a buffer, as jansson's
 * JSON_COMPACT output (without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH):
 * the webhook's answers, patches and log lines.
 */
#ifndef GPUMEND_JSON_WRITE_H
#define GPUMEND_JSON_WRITE_H

#include <stddef.h>
#include <jansson.h>

#include "buf.h"

/*
 * Appends text[0..len) as a JSON string: '"', '\\' and control bytes
 * escaped as jansson escapes them, the rest as it is (the caller sees to
 * valid UTF-8). 0, or -1 over the buffer's cap or out of memory.
 */
int json_write_string(struct buf *b, const char *text, size_t len);

/* Appends the decimal digits of `value`; 0 or -1. */
int json_write_int(struct buf *b, long long value);

/* Appends `value` as json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY)
 * writes it; 0 or -1. */
int json_write_value(struct buf *b, const json_t *value);

/* Appends the base64 (RFC 4648, with padding) of data[0..len); 0 or -1. */
int json_write_base64(struct buf *b, const unsigned char *data, size_t len);

#endif
