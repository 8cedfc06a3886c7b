/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_template.c - libFuzzer target: bytes in as a Helm template, the
 * template masker (helm/template_mask.c) and the template pipeline of
 * `gpumend migrate` and `gpumend lint` out.
 *
 * What must hold: a refused template names a place inside it; otherwise
 * every action starts with "{{" and ends with "}}", in order and apart;
 * every mask of every variant and valuation keeps the text's length and
 * its line breaks where they are, leaves no action's "{{" behind, and
 * changes only the bytes of actions, of lines holding only actions, and
 * of lines of branches the variant does not take. Migrating it either
 * reports an error, or keeps every action of the input, in order, byte
 * for byte, and migrating its output again changes nothing. Every
 * finding has a place inside the file and a one-line message.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "helm.h"
#include "fuzz.h"
#include "template_mask.h"

struct findings {
	size_t lines;              /* of the file */
	size_t n;
};

/* Lines as YAML counts them: LF, CRLF or a lone CR end one. */
static size_t count_lines(const char *text, size_t len)
{
	size_t n = 1;

	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n' ||
		     (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'));
	return n;
}

static int finding_check(void *arg, const struct chart_finding *f)
{
	struct findings *fs = arg;

	if (f->line < 0 || (size_t)f->line > fs->lines || f->column < 0)
		fuzz_fail("finding at %d:%d outside the %zu lines", f->line,
			  f->column, fs->lines);
	if (!f->message || strchr(f->message, '\n') || !f->rule)
		fuzz_fail("finding without a one-line message: '%s'",
			  f->message ? f->message : "(null)");
	/* the object's names go on the finding's line too */
	if ((f->kind && strchr(f->kind, '\n')) ||
	    (f->namespace && strchr(f->namespace, '\n')) ||
	    (f->name && strchr(f->name, '\n')) ||
	    (f->generate_name && strchr(f->generate_name, '\n')))
		fuzz_fail("finding naming its object on more than one line");
	fs->n++;
	return 0;
}

/* 1 when byte `i` lies in a line fully inside a branch `variant` hides. */
static int hidden(const struct tpl *t, size_t variant, size_t i)
{
	int b = tpl_context(t, i, 0);

	for (; b >= 0; b = t->branches[b].parent)
		if (!tpl_visible(t, variant, b)) {
			/* the line must lie inside the branch */
			size_t ls = i, le = i;

			while (ls > 0 && t->text[ls - 1] != '\n')
				ls--;
			while (le < t->len && t->text[le] != '\n')
				le++;
			if (le > ls && t->text[le - 1] == '\r')
				le--;
			if (ls >= t->branches[b].start &&
			    le <= t->branches[b].end)
				return 1;
		}
	return 0;
}

static int masked_byte(const struct tpl *t, size_t i)
{
	for (size_t l = 0; l < t->n_lines; l++)
		if (t->lines[l].action_line && t->lines[l].start <= i &&
		    i < t->lines[l].end)
			return 1;
	for (size_t a = 0; a < t->n_actions; a++)
		if (t->actions[a].mask_start <= i && i < t->actions[a].mask_end)
			return 1;
	return 0;
}

static void mask_check(const struct tpl *t)
{
	char *out = malloc(t->len ? t->len : 1);
	size_t variants = t->n_variants < 6 ? t->n_variants : 6;

	if (!out)
		return;
	for (size_t v = 0; v < variants; v++)
		for (int u = 1; u <= 3; u++) {
			tpl_mask(t, v, u, out);
			for (size_t i = 0; i < t->len; i++) {
				if ((t->text[i] == '\n' || t->text[i] == '\r' ||
				     out[i] == '\n' || out[i] == '\r') &&
				    out[i] != t->text[i])
					fuzz_fail("mask %zu/%d moves a line break at byte %zu",
						  v, u, i);
				if (out[i] != t->text[i] && !masked_byte(t, i) &&
				    !hidden(t, v, i))
					fuzz_fail("mask %zu/%d changes byte %zu outside actions",
						  v, u, i);
			}
			for (size_t a = 0; a < t->n_actions; a++)
				if (memcmp(out + t->actions[a].start, "{{", 2) == 0)
					fuzz_fail("mask %zu/%d leaves action %zu", v, u, a);
		}
	free(out);
}

static void scan_check(const char *text, size_t len)
{
	struct tpl t;
	struct tpl_error err;
	size_t prev = 0;

	if (tpl_scan(text, len, &t, &err)) {
		if (!err.message[0] || err.line < 0 ||
		    (size_t)err.line > count_lines(text, len))
			fuzz_fail("refused at %d:%d without a place: '%s'",
				  err.line, err.column, err.message);
		return;
	}
	for (size_t a = 0; a < t.n_actions; a++) {
		const struct tpl_action *act = &t.actions[a];

		if (act->start < prev || act->end > len ||
		    act->end < act->start + 4 ||
		    memcmp(text + act->start, "{{", 2) != 0 ||
		    memcmp(text + act->end - 2, "}}", 2) != 0)
			fuzz_fail("action %zu [%zu, %zu) is not one", a,
				  act->start, act->end);
		if (act->mask_start > act->start || act->mask_end < act->end)
			fuzz_fail("action %zu is not inside its mask", a);
		prev = act->end;
	}
	mask_check(&t);
	tpl_free(&t);
}

/* The actions of `text`, one per line, in `out`; 0, or -1 when it does
 * not scan. */
static int actions_of(const char *text, size_t len, struct buf *out)
{
	struct tpl t;
	struct tpl_error err;

	if (tpl_scan(text, len, &t, &err))
		return -1;
	for (size_t a = 0; a < t.n_actions; a++) {
		buf_append(out, text + t.actions[a].start,
			   t.actions[a].end - t.actions[a].start);
		buf_putc(out, '\0');
	}
	tpl_free(&t);
	return 0;
}

/* 1 when the actions `want` (NUL-separated) are in `got`, in order. */
static int actions_kept(const struct buf *want, const struct buf *got)
{
	size_t i = 0, j = 0;

	while (i < want->len) {
		const char *w = want->data + i;
		size_t wl = strlen(w);

		while (j < got->len && strcmp(got->data + j, w) != 0)
			j += strlen(got->data + j) + 1;
		if (j >= got->len)
			return 0;
		j += strlen(got->data + j) + 1;
		i += wl + 1;
	}
	return 1;
}

static void pipeline_check(const struct config *cfg, const char *text,
			   size_t len)
{
	struct findings fs = { count_lines(text, len), 0 };
	struct chart_job job = { .cfg = cfg, .report = finding_check,
				 .arg = &fs };
	struct source_error err;
	struct buf out, again, before, after;

	job.lint = 1;
	chart_run(&job, CHART_TEMPLATE, text, len, NULL, &err);
	job.lint = 0;
	buf_init(&out, 0);
	if (chart_run(&job, CHART_TEMPLATE, text, len, &out, &err) != 0 ||
	    job.errors) {
		buf_free(&out);
		return;
	}
	buf_init(&before, 0);
	buf_init(&after, 0);
	if (actions_of(text, len, &before) ||
	    actions_of(out.data ? out.data : "", out.len, &after))
		fuzz_fail("the migrated template does not scan");
	if (!actions_kept(&before, &after))
		fuzz_fail("an action of the template is not kept");
	buf_init(&again, 0);
	fs.lines = count_lines(out.data ? out.data : "", out.len);
	if (chart_run(&job, CHART_TEMPLATE, out.data ? out.data : "", out.len,
		      &again, &err) != 0 || job.errors)
		fuzz_fail("the migrated template does not migrate: %s",
			  err.message);
	if (again.len != out.len || (out.len &&
				     memcmp(again.data, out.data, out.len)))
		fuzz_fail("migrating the migrated template changes it");
	buf_free(&again);
	buf_free(&before);
	buf_free(&after);
	buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum fuzz_config configs[] = {
		FUZZ_CONFIG_DEFAULT, FUZZ_CONFIG_MUTATE
	};
	const char *text = (const char *)data;

	scan_check(text, size);
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		pipeline_check(fuzz_config_get(configs[i]), text, size);
	return 0;
}
