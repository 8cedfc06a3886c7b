/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quantity.c - Kubernetes resource quantities and GPU model names.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* Multiplies with overflow check. */
static int mul_checked(long long a, long long b, long long *out)
{
	return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

/*
 * A quantity is <sign><digits>[.<digits>]<suffix>, where the suffix is a
 * binary SI one (Ki Mi Gi Ti Pi Ei), a decimal SI one (n u m "" k M G T P E)
 * or an exponent (e3, E-2). Values are computed exactly in thousandths;
 * anything finer than a thousandth, or too large, is refused.
 */
int quantity_parse_milli(const char *text, long long *milli)
{
	const char *p = text;
	long long whole = 0, frac = 0, value;
	int negative = 0, frac_digits = 0, exp10 = 0, digits = 0;
	long long mult = 1; /* binary multiplier */

	if (*p == '+' || *p == '-')
		negative = *p++ == '-';
	while (isdigit((unsigned char)*p)) {
		if (mul_checked(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, *p - '0', &whole))
			return -1;
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (frac_digits < 18) {
				frac = frac * 10 + (*p - '0');
				frac_digits++;
			} else if (*p != '0') {
				return -1;
			}
			p++;
			digits++;
		}
	}
	if (!digits)
		return -1;

	if (!*p) {
		exp10 = 0;
	} else if (p[0] && p[1] == 'i' && !p[2]) {
		const char *bin = "KMGTPE", *at = strchr(bin, p[0]);

		if (!at || !p[0])
			return -1;
		for (int i = 0; i <= at - bin; i++)
			if (mul_checked(mult, 1024, &mult))
				return -1;
	} else if ((p[0] == 'e' || p[0] == 'E') && p[1]) {
		char *end;
		long e = strtol(p + 1, &end, 10);

		if (*end || e < -30 || e > 30)
			return -1;
		exp10 = (int)e;
	} else if (!p[1]) {
		switch (p[0]) {
		case 'n': exp10 = -9; break;
		case 'u': exp10 = -6; break;
		case 'm': exp10 = -3; break;
		case 'k': exp10 = 3; break;
		case 'M': exp10 = 6; break;
		case 'G': exp10 = 9; break;
		case 'T': exp10 = 12; break;
		case 'P': exp10 = 15; break;
		case 'E': exp10 = 18; break;
		default: return -1;
		}
	} else {
		return -1;
	}

	/* value * 1000 = (whole + frac / 10^fd) * mult * 10^(exp10 + 3) */
	exp10 += 3;
	if (mul_checked(whole, mult, &whole) || mul_checked(frac, mult, &frac))
		return -1;
	/* combine whole and fraction as an integer scaled by 10^-fd */
	value = whole;
	for (int i = 0; i < frac_digits; i++)
		if (mul_checked(value, 10, &value))
			return -1;
	if (__builtin_add_overflow(value, frac, &value))
		return -1;
	exp10 -= frac_digits;
	while (exp10 > 0) {
		if (mul_checked(value, 10, &value))
			return -1;
		exp10--;
	}
	while (exp10 < 0) {
		if (value % 10)
			return -1;
		value /= 10;
		exp10++;
	}
	*milli = negative ? -value : value;
	return 0;
}

int resource_count(json_t *value, long long *count)
{
	long long milli;

	if (json_is_integer(value)) {
		if (json_integer_value(value) < 0)
			return -1;
		*count = json_integer_value(value);
		return 0;
	}
	if (json_is_real(value)) {
		double d = json_real_value(value);

		if (d < 0 || d > 1e15 || d != (double)(long long)d)
			return -1;
		*count = (long long)d;
		return 0;
	}
	if (!json_is_string(value) ||
	    quantity_parse_milli(json_string_value(value), &milli) != 0 ||
	    milli < 0 || milli % 1000)
		return -1;
	*count = milli / 1000;
	return 0;
}

char *gpu_name_normalize(const char *name)
{
	size_t n = strlen(name), o = 0;
	char *out = malloc(n + 1);
	int pending_space = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == ' ') {
			pending_space = 1;
			continue;
		}
		if (!isalnum(c) && c != '_' && c != '.' && c != '-')
			continue;
		if (pending_space && o > 0)
			out[o++] = '-';
		pending_space = 0;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return out;
}

int string_list_has(const struct string_list *list, const char *s)
{
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->items[i], s) == 0)
			return 1;
	return 0;
}
