/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * template_migrate.c - migrating and linting Helm templates in place.
 *
 * The template is read through its masks (template_mask.h): for every
 * variant (a choice of branches of its conditionals) and three valuations
 * of the actions that are whole scalars, the masked text is parsed and the
 * rules run over each document, as for any manifest. Then:
 *
 *  - an operation is a candidate when the rules make it under valuations 1
 *    and 2 alike: it does not depend on what an action prints. Anything
 *    the rules do under one valuation only (under 3, "x y", a value that
 *    no normalisation leaves alone) depends on an action, and is reported;
 *  - candidates are turned into text edits by the text patcher (on the
 *    masked text, whose offsets are the template's), one more at a time
 *    when they do not all pass together. An edit must not touch an
 *    action's bytes, nor go into a mapping or list that a whole-line
 *    action fills in (`labels:` then `{{- include ... | nindent 4 }}`:
 *    gpumend cannot see what is there), nor land in a conditional branch
 *    the place it edits is not in (an addition after the last member of
 *    a mapping is moved past `{{- end }}` lines to the mapping's level).
 *    A candidate whose edits break one of these is held and reported;
 *  - an edit made under one variant must be made by every variant that
 *    shows its place: otherwise the change holds for some branches only
 *    (a GPU block inside `{{- if }}` that needs node affinity outside it),
 *    and the candidate is held. This is settled by repeating the above
 *    with the offending edits forbidden, until every variant agrees;
 *  - the agreed edits are applied to the template itself. Placeholders
 *    that an edit copies (a label whose value holds an action, copied into
 *    a selector) become the action's text again. The result is read again
 *    through its masks, and must give, for every variant, the documents
 *    the accepted operations give; otherwise nothing is changed.
 *
 * Findings are located in the masked text, whose lines and columns are
 * the template's; placeholders in messages are written back as the
 * actions they stand for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "helm_private.h"
#include "json_scan.h"
#include "report_object.h"
#include "template_mask.h"
#include "text_patch.h"

/* The most template text read, over all combinations of branches. */
#define TEMPLATE_READ_MAX (32u << 20)

/* Why a change the rules make is not made in the template. */
enum hold_reason {
	HOLD_NONE,
	HOLD_VALUE,        /* it depends on what an action prints */
	HOLD_ACTION,       /* it would rewrite or delete an action */
	HOLD_FILLED,       /* it goes into something an action fills in */
	HOLD_BRANCH,       /* it would land in a conditional it is not in */
	HOLD_CONDITIONAL,  /* the branches of the conditionals disagree */
	HOLD_DEPENDS,      /* it depends on a change that is not made */
	HOLD_PLACE,        /* the text patcher cannot place it */
	HOLD_RELEASE,      /* a selector of labels that all vary per
			    * release */
	HOLD_READBACK,     /* its document, edited, does not read back as
			    * the rules' result */
	HOLD_TOGETHER,     /* another change of its rule is held: a rule's
			    * changes to a document are made together or
			    * not at all, so that what stays legacy stays
			    * visible (to lint, to rendering then migrating) */
	HOLD_SPLIT         /* it would land between a key and the whole-line
			    * action that fills it in */
};

struct candidate {
	struct patch_op op;        /* owned copy */
	int null_after;            /* then the collection it leaves is null:
				    * the member goes, not the collection a
				    * rule would prune (see settle_doc) */
	int held;                  /* not made */
	int primary;               /* held for a reason of its own, which
				    * held its rule's other changes */
	enum hold_reason reason;
	int action;                /* the action concerned, or -1 */
	char why[160];             /* HOLD_PLACE, HOLD_READBACK */
};

/* A document of one variant. */
struct tdoc {
	struct source_doc doc;     /* its span; doc.root: the latest tree */
	struct source_node *tree;  /* the tree of the first reading */
	json_t *json;              /* its value under valuation 1, before
				    * the rules; NULL for an empty one */
	struct candidate *cand;
	size_t n_cand, cap_cand;
	struct text_edits edits;   /* of the accepted candidates */
	struct text_edits forbidden; /* edits other variants do not make */
	size_t cap_forbidden;
	int dirty;                 /* to settle (again) */
};

struct tvariant {
	char *masked;              /* the text under valuation 1 */
	struct tdoc *docs;
	size_t n_docs, cap_docs;
	int skipped;               /* does not read as YAML: the branches it
				    * takes cannot be taken together */
};

/* A finding to report, once. */
struct tfinding {
	int line, column;
	const char *rule;
	enum severity severity;
	char *message;
	char *pointer;
	/* its object (report_item_object()), actions written back */
	struct report_object object;
};

struct tjob {
	struct chart_job *job;
	const char *text;
	size_t len;
	struct tpl t;
	struct source_limits limits;
	struct tvariant *variants;
	size_t n_variants;
	struct tfinding *findings;
	size_t n_findings, cap_findings;
	struct defines *defines;   /* of the chart's templates */
	json_t *values;            /* the chart's values.yaml, or NULL */
	int members;               /* includes are read as members */
	int reread;                /* an action is read as an integer now */
	int syntax;                /* the last reading failed as YAML */
	int oom;
};

static void *grow(void *items, size_t *cap, size_t n, size_t size)
{
	void *grown;
	size_t want;

	if (n < *cap)
		return items;
	want = *cap ? *cap * 2 : 8;
	grown = realloc(items, want * size);
	if (!grown)
		return NULL;
	*cap = want;
	return grown;
}

static const char *ph_of(struct tjob *tj, size_t a, char *ph, size_t size)
{
	tpl_placeholder(&tj->t, a, 1, ph, size);
	return ph;
}

/* 1 when `text` starts with the placeholder bytes of action `a` (one
 * that is part of a scalar or a key). */
static int placeholder_at(struct tjob *tj, size_t a, const char *text,
			  size_t n)
{
	char bytes[4096];
	size_t k = tpl_placeholder_bytes(&tj->t, a, 1, bytes, sizeof(bytes));

	return k && k <= n && memcmp(text, bytes, k) == 0;
}

/* 1 + the indentation of the line when text[i] is its first non-blank
 * byte; else 0. */
static size_t line_head(const char *text, size_t i)
{
	size_t k = i;

	while (k > 0 && text[k - 1] == ' ')
		k--;
	return k == 0 || text[k - 1] == '\n' ? i - k + 1 : 0;
}

/* 1 when text[i..i+len) is a whole plain scalar of YAML text. */
static int whole_scalar_at(const char *text, size_t n, size_t i, size_t len)
{
	size_t p = i, e = i + len;

	while (p > 0 && text[p - 1] == ' ')
		p--;
	if (p > 0 && !strchr(":-[{,?\n", text[p - 1]))
		return 0;
	while (e < n && text[e] == ' ')
		e++;
	return e == n || strchr("\n\r,]}#", text[e]) != NULL;
}

/*
 * The action whose placeholder starts at text[i], or -1; its length in
 * *len. With `edit`, an include read as a member is a whole line
 * "xHASH: xHASH"; otherwise its key.
 */
static int placeholder_here(struct tjob *tj, const char *text, size_t n,
			    size_t i, int edit, size_t *len)
{
	for (size_t a = 0; a < tj->t.n_actions; a++) {
		const struct tpl_action *act = &tj->t.actions[a];
		char ph[16];
		size_t k;

		if (act->place == TPL_PLACE_LINE || act->kind != TPL_OUTPUT)
			continue;
		if (act->place == TPL_PLACE_MEMBER && edit) {
			k = strlen(ph_of(tj, a, ph, sizeof(ph)));
			*len = 2 * k + 2;
			if (n - i >= *len && memcmp(text + i, ph, k) == 0 &&
			    memcmp(text + i + k, ": ", 2) == 0 &&
			    memcmp(text + i + k + 2, ph, k) == 0 &&
			    (i + *len == n || text[i + *len] == '\n' ||
			     text[i + *len] == '\r') && line_head(text, i))
				return (int)a;
			continue;
		}
		if (act->place == TPL_PLACE_VALUE ||
		    act->place == TPL_PLACE_MEMBER) {
			*len = strlen(ph_of(tj, a, ph, sizeof(ph)));
			if (*len && n - i >= *len &&
			    memcmp(text + i, ph, *len) == 0 &&
			    (i == 0 || text[i - 1] < '0' || text[i - 1] > '9') &&
			    (i + *len == n || text[i + *len] < '0' ||
			     text[i + *len] > '9'))
				return (int)a;
			continue;
		}
		*len = act->end - act->start;
		if (act->mask_start == act->start && act->mask_end == act->end &&
		    n - i >= *len && placeholder_at(tj, a, text + i, n - i))
			return (int)a;
	}
	return -1;
}

/*
 * text[0..n) with its placeholders written back (see placeholder_here):
 * in a message as the actions; with `edit`, as what an edit's text must
 * hold (a quoted whole scalar with its quotes, a member moved with its
 * nindent following). A new NUL-terminated string, its length in *out_len
 * when not NULL; NULL when out of memory.
 */
static char *unmask_text(struct tjob *tj, const char *text, size_t n,
			 int edit, size_t *out_len)
{
	struct buf b;
	char *out;

	buf_init(&b, 0);
	for (size_t i = 0; i < n; ) {
		size_t len = 0;
		int a = placeholder_here(tj, text, n, i, edit, &len);
		const struct tpl_action *act = a >= 0 ? &tj->t.actions[a] : NULL;
		int rc;

		if (!act) {
			rc = buf_putc(&b, text[i++]);
		} else if (edit && act->place == TPL_PLACE_MEMBER) {
			char line[1024];
			size_t k = tpl_member_text(&tj->t, (size_t)a,
						   (int)line_head(text, i) - 1,
						   line, sizeof(line));

			rc = !k || buf_append(&b, line, k);
			i += len;
		} else if (edit && (act->place != TPL_PLACE_VALUE ||
				    whole_scalar_at(text, n, i, len))) {
			rc = buf_append(&b, tj->text + act->mask_start,
					act->mask_end - act->mask_start);
			i += len;
		} else {
			rc = buf_append(&b, tj->text + act->start,
					act->end - act->start);
			i += len;
		}
		if (rc) {
			buf_free(&b);
			return NULL;
		}
	}
	if (buf_putc(&b, '\0')) {
		buf_free(&b);
		return NULL;
	}
	out = buf_detach(&b, out_len);
	if (out && out_len)
		(*out_len)--;
	return out;
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */

static int op_copy(struct patch_op *dst, const struct patch_op *src)
{
	*dst = *src;
	dst->path = strdup(src->path);
	dst->from = src->from ? strdup(src->from) : NULL;
	dst->value = src->value ? json_deep_copy(src->value) : NULL;
	if (!dst->path || (src->from && !dst->from) ||
	    (src->value && !dst->value)) {
		free(dst->path);
		free(dst->from);
		json_decref(dst->value);
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	return 0;
}

static void op_free(struct patch_op *op)
{
	free(op->path);
	free(op->from);
	json_decref(op->value);
}

static int add_candidate(struct tdoc *td, const struct patch_op *op, int held,
			 enum hold_reason reason)
{
	struct candidate *c;
	struct candidate *grown = grow(td->cand, &td->cap_cand, td->n_cand,
				       sizeof(*grown));

	if (!grown)
		return -1;
	td->cand = grown;
	c = &td->cand[td->n_cand];
	memset(c, 0, sizeof(*c));
	if (op_copy(&c->op, op))
		return -1;
	c->held = held;
	c->reason = reason;
	c->action = -1;
	td->n_cand++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Findings                                                            */

/* `text` for a message: placeholders written back as the actions, control
 * bytes escaped; a new string, or NULL. */
static char *unmask_new(struct tjob *tj, const char *text)
{
	char *out = unmask_text(tj, text, strlen(text), 0, NULL);

	return out ? text_escape_controls(out) : NULL;
}

/* `s` for a message (unmask_new()), or NULL for NULL; sets *failed. */
static char *unmask_or_null(struct tjob *tj, const char *s, int *failed)
{
	char *out = s ? unmask_new(tj, s) : NULL;

	if (s && !out)
		*failed = 1;
	return out;
}

/* unmask_new() as report_object_copy() calls it. */
static char *unmask_copy(void *arg, const char *s)
{
	return unmask_new(arg, s);
}

static void tfinding_free(struct tfinding *f)
{
	free(f->message);
	free(f->pointer);
	report_object_clear(&f->object);
}

/* A finding at `pointer` of document `td`, whose object it names. */
static int add_finding(struct tjob *tj, const struct tdoc *td, int line,
		       int column, const char *rule, enum severity severity,
		       const char *message, const char *pointer)
{
	struct tfinding new = { .line = line, .column = column, .rule = rule,
				.severity = severity };
	struct report_item item = { .pointer = pointer };
	struct tfinding *f, *grown;
	int failed = 0;

	report_item_object(&item, td->json);
	new.message = unmask_or_null(tj, message, &failed);
	new.pointer = unmask_or_null(tj, pointer, &failed);
	if (report_object_copy(&new.object, &item, unmask_copy, tj))
		failed = 1;
	if (failed)
		goto out_nomem;
	for (size_t i = 0; i < tj->n_findings; i++) {
		f = &tj->findings[i];
		if (f->line == line && f->column == column &&
		    strcmp(f->rule, rule) == 0 &&
		    strcmp(f->message, new.message) == 0) {
			tfinding_free(&new);
			return 0;
		}
	}
	grown = grow(tj->findings, &tj->cap_findings, tj->n_findings,
		     sizeof(*grown));
	if (!grown)
		goto out_nomem;
	tj->findings = grown;
	tj->findings[tj->n_findings++] = new;
	return 0;
out_nomem:
	tfinding_free(&new);
	tj->oom = 1;
	return -1;
}

static int finding_cmp(const void *a, const void *b)
{
	const struct tfinding *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return strcmp(x->message, y->message);
}

/* ------------------------------------------------------------------ */
/* Defines whose keys are known                                        */

/* A define of the chart: the keys its output has, when they are known. */
struct define {
	char *name;
	char **keys;
	size_t n_keys;
	char **deps;               /* defines it includes on lines of its own */
	size_t n_deps;
	int state;                 /* 0 unresolved, 1 known, -1 unknown,
				    * 2 being resolved */
	char *body;                /* its text */
};

struct defines {
	struct define *items;
	size_t n, cap;
};

static int strv_add(char ***v, size_t *n, const char *s, size_t len)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(**v));

	if (!grown)
		return -1;
	*v = grown;
	if (!(grown[*n] = strndup(s, len)))
		return -1;
	(*n)++;
	return 0;
}

/*
 * Reads the body of a define: the keys of the mapping it prints (under
 * every variant of its conditionals), and the defines it includes on lines
 * of their own. d->state -1 when it prints something else.
 */
static int define_read_body(struct define *d, const char *body, size_t len,
			    const struct source_limits *limits)
{
	struct tpl t;
	struct tpl_error terr;
	char *masked;
	int rc = 0;

	if (tpl_scan(body, len, &t, &terr)) {
		d->state = -1;
		return 0;
	}
	for (size_t i = 0; i < t.n_actions && d->state == 0; i++) {
		const struct tpl_action *a = &t.actions[i];
		const char *name;
		size_t n;

		if (a->place == TPL_PLACE_KEY)
			d->state = -1;
		else if (a->place == TPL_PLACE_LINE && a->kind == TPL_OUTPUT) {
			if (!tpl_action_define(&t, i, &name, &n))
				d->state = -1;
			else if (strv_add(&d->deps, &d->n_deps, name, n))
				rc = -1;
		}
	}
	masked = malloc(len ? len : 1);
	if (!masked)
		rc = -1;
	for (size_t v = 0; rc == 0 && d->state == 0 && v < t.n_variants; v++) {
		struct source_error err;
		json_t *doc;
		const char *key;
		json_t *value;

		tpl_mask(&t, v, 1, masked);
		doc = source_parse_one(masked, len, limits, NULL, &err);
		if (json_is_null(doc) && d->n_deps) {
			json_decref(doc);
			continue; /* only includes */
		}
		if (!json_is_object(doc)) {
			d->state = -1;
			json_decref(doc);
			break;
		}
		json_object_foreach(doc, key, value)
			if (strv_add(&d->keys, &d->n_keys, key, strlen(key)))
				rc = -1;
		json_decref(doc);
	}
	free(masked);
	tpl_free(&t);
	return rc;
}

/* Adds the defines of one template file. */
static int defines_add_file(void *arg, const char *path, const char *text,
			    size_t len)
{
	struct defines *ds = arg;
	struct source_limits limits = { 1 << 20, 64, 10000 };
	struct tpl t;
	struct tpl_error terr;
	int rc = 0;

	(void)path;
	if (tpl_scan(text, len, &t, &terr))
		return 0;
	for (size_t c = 0; rc == 0 && c < t.n_chains; c++) {
		const struct tpl_branch *body;
		struct define *d, *grown;
		const char *name;
		size_t n;

		if (t.chains[c].kind != TPL_DEFINE ||
		    !tpl_action_define(&t, (size_t)t.chains[c].open_action,
				       &name, &n))
			continue;
		grown = grow(ds->items, &ds->cap, ds->n, sizeof(*grown));
		if (!grown) {
			rc = -1;
			break;
		}
		ds->items = grown;
		d = &ds->items[ds->n++];
		memset(d, 0, sizeof(*d));
		if (!(d->name = strndup(name, n))) {
			rc = -1;
			break;
		}
		body = &t.branches[t.chains[c].first_branch];
		if (!(d->body = strndup(text + body->start,
					body->end - body->start))) {
			rc = -1;
			break;
		}
		rc = define_read_body(d, text + body->start,
				      body->end - body->start, &limits);
	}
	tpl_free(&t);
	return rc;
}

static struct define *define_find(struct defines *ds, const char *name,
				  size_t len)
{
	for (size_t i = 0; ds && i < ds->n; i++)
		if (strlen(ds->items[i].name) == len &&
		    memcmp(ds->items[i].name, name, len) == 0)
			return &ds->items[i];
	return NULL;
}

/* Known keys of define `d`, its includes' added: 1 or -1 (unknown). */
static int define_resolve(struct defines *ds, struct define *d, int depth)
{
	if (d->state == 1 || d->state == -1)
		return d->state;
	if (d->state == 2 || depth > 16)
		return -1; /* a loop */
	d->state = 2;
	for (size_t i = 0; i < d->n_deps; i++) {
		struct define *dep = define_find(ds, d->deps[i],
						 strlen(d->deps[i]));

		if (!dep || define_resolve(ds, dep, depth + 1) != 1) {
			d->state = -1;
			return -1;
		}
		for (size_t k = 0; k < dep->n_keys; k++)
			if (strv_add(&d->keys, &d->n_keys, dep->keys[k],
				     strlen(dep->keys[k]))) {
				d->state = -1;
				return -1;
			}
	}
	d->state = 1;
	return 1;
}

static int define_known(void *arg, const char *name, size_t len)
{
	struct defines *ds = arg;
	struct define *d = define_find(ds, name, len);

	return d && define_resolve(ds, d, 0) == 1;
}

static int define_has_key(struct defines *ds, const char *name, size_t len,
			  const char *key)
{
	struct define *d = define_find(ds, name, len);

	if (!d || d->state != 1)
		return 1;
	for (size_t i = 0; i < d->n_keys; i++)
		if (strcmp(d->keys[i], key) == 0)
			return 1;
	return 0;
}

static void defines_free(struct defines *ds)
{
	for (size_t i = 0; ds && i < ds->n; i++) {
		struct define *d = &ds->items[i];

		free(d->name);
		free(d->body);
		for (size_t k = 0; k < d->n_keys; k++)
			free(d->keys[k]);
		free(d->keys);
		for (size_t k = 0; k < d->n_deps; k++)
			free(d->deps[k]);
		free(d->deps);
	}
	if (ds)
		free(ds->items);
}

/*
 * What an action reads that changes from one release of a chart to the
 * next, or from one rendering to the next: a label printing one of these
 * must not go into a selector, which cannot change once created.
 */
static const char *const release_varying[] = {
	".Chart.Version", ".Chart.AppVersion", ".Release.Revision",
	".Release.IsUpgrade", ".Release.IsInstall", ".Capabilities",
	"now", "date", "dateInZone", "htmlDate", "htmlDateInZone",
	"unixEpoch", "randAlpha", "randAlphaNum", "randAscii", "randNumeric",
	"randBytes", "randInt", "uuidv4", "shuffle", "genCA",
	"genPrivateKey", "genSelfSignedCert", "genSignedCert", "lookup",
	NULL
};

static int ident_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/*
 * 1 when an action of text[0..n) reads something of release_varying,
 * itself or through the defines it includes (up to `depth` deep).
 */
static int text_varies(struct defines *ds, const char *text, size_t n,
		       int depth)
{
	for (size_t i = 0; i + 1 < n; i++) {
		size_t end;

		if (text[i] != '{' || text[i + 1] != '{')
			continue;
		for (end = i + 2; end + 1 < n &&
		     !(text[end] == '}' && text[end + 1] == '}'); end++)
			;
		for (size_t k = i + 2; k < end; k++) {
			const struct define *d;
			const char *name;
			size_t len;

			for (size_t w = 0; release_varying[w]; w++) {
				const char *v = release_varying[w];

				len = strlen(v);
				if (k + len <= end &&
				    memcmp(text + k, v, len) == 0 &&
				    (k + len == end || !ident_byte(text[k + len])) &&
				    (*v == '.' || (!ident_byte(text[k - 1]) &&
						   !strchr(".$", text[k - 1]))))
					return 1;
			}
			/* include "NAME" and template "NAME" */
			if (depth > 16 || text[k] != '"' ||
			    !((k >= i + 10 &&
			       memcmp(text + k - 8, "include ", 8) == 0) ||
			      (k >= i + 11 &&
			       memcmp(text + k - 9, "template ", 9) == 0)))
				continue;
			name = text + k + 1;
			for (len = 0; k + 1 + len < end && name[len] != '"'; len++)
				;
			d = define_find(ds, name, len);
			if (d && d->body &&
			    text_varies(ds, d->body, strlen(d->body), depth + 1))
				return 1;
		}
		i = end;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The source tree and the actions                                     */

/* The deepest node on the way to `pointer`. */
static struct source_node *node_at(struct source_node *root,
				   const char *pointer)
{
	struct source_node *node = root;
	char token[1024];

	while (node && *pointer) {
		struct source_node *next = NULL;

		if (node->alias || json_pointer_next(&pointer, token,
						     sizeof(token)))
			break;
		if (node->kind == SOURCE_MAPPING) {
			for (size_t i = 0; i < node->n_children; i++)
				if (strcmp(node->children[i].key, token) == 0)
					next = node->children[i].node;
		} else if (node->kind == SOURCE_SEQUENCE) {
			char *end;
			unsigned long idx = strtoul(token, &end, 10);

			if (!*end && *token && idx < node->n_children)
				next = node->children[idx].node;
		}
		if (!next)
			break;
		node = next;
	}
	return node;
}

/* Where a member or an item starts: its key, or its "-". */
static size_t child_start(const char *masked, const struct source_node *parent,
			  const struct source_child *c)
{
	size_t off;

	if (parent->kind == SOURCE_MAPPING)
		return c->key_start;
	off = c->node->start;
	if (parent->flow)
		return off;
	while (off > 0 && (masked[off - 1] == ' ' || masked[off - 1] == '\t' ||
			   masked[off - 1] == '\n' || masked[off - 1] == '\r'))
		off--;
	return off > 0 && masked[off - 1] == '-' ? off - 1 : c->node->start;
}

/* 1 when a member's value can hold the lines after it: a block
 * collection, or nothing written (`key:`). */
static int holds_lines(const struct source_node *n)
{
	if (n->kind == SOURCE_SCALAR)
		return n->start == n->end;
	return !n->flow && !n->alias;
}

/*
 * The node that the whole-line action at `x` fills in: the innermost
 * member whose lines (up to the next member) hold it, and that can hold
 * lines; else the collection itself.
 */
static const struct source_node *line_owner(const char *masked,
					    const struct source_node *root,
					    size_t x, size_t doc_end)
{
	const struct source_node *node = root;
	size_t region_end = doc_end;

	while (node && node->kind != SOURCE_SCALAR && !node->flow &&
	       !node->alias) {
		const struct source_child *found = NULL;
		size_t found_end = region_end;

		for (size_t i = 0; i < node->n_children; i++) {
			const struct source_child *c = &node->children[i];
			size_t cs = child_start(masked, node, c);
			size_t ce = i + 1 < node->n_children ?
				child_start(masked, node, &node->children[i + 1]) :
				region_end;

			if (cs <= x && x < ce) {
				if (holds_lines(c->node)) {
					found = c;
					found_end = ce;
				}
				break;
			}
		}
		if (!found)
			break;
		node = found->node;
		region_end = found_end;
	}
	return node;
}

/* 1 when `sub` is `node` or inside it. */
static int within(const struct source_node *node,
		  const struct source_node *sub)
{
	if (node == sub)
		return 1;
	for (size_t i = 0; i < node->n_children; i++)
		if (within(node->children[i].node, sub))
			return 1;
	for (size_t i = 0; i < node->n_removed; i++)
		if (within(node->removed[i].node, sub))
			return 1;
	return 0;
}

/*
 * The first whole-line action printing something that fills in `node`
 * (with `deep`: `node` or anything inside it), or -1.
 */
static int filled_by(struct tjob *tj, const char *masked,
		     const struct source_doc *doc,
		     const struct source_node *root,
		     const struct source_node *node, int deep)
{
	for (size_t i = 0; i < tj->t.n_actions; i++) {
		const struct tpl_action *a = &tj->t.actions[i];
		const struct source_node *owner;

		if (a->place != TPL_PLACE_LINE || a->kind != TPL_OUTPUT ||
		    a->mask_start < doc->start || a->mask_start >= doc->end)
			continue;
		owner = line_owner(masked, root, a->mask_start, doc->end);
		if (owner == node || (deep && within(node, owner)))
			return (int)i;
	}
	return -1;
}

/* The first action printing something inside `node`'s own text, or -1. */
static int inline_action_in(struct tjob *tj, const struct source_node *node)
{
	for (size_t i = 0; i < tj->t.n_actions; i++) {
		const struct tpl_action *a = &tj->t.actions[i];

		if (a->place != TPL_PLACE_LINE && a->kind == TPL_OUTPUT &&
		    a->mask_start >= node->start && a->mask_start < node->end)
			return (int)i;
	}
	return -1;
}

/* Where the member or item holding `node` starts; the document's start
 * for the root. */
static int holder_of(const char *masked, const struct source_node *parent,
		     const struct source_node *node, size_t *off)
{
	for (size_t i = 0; i < parent->n_children; i++) {
		const struct source_child *c = &parent->children[i];

		if (c->node == node) {
			*off = child_start(masked, parent, c);
			return 1;
		}
		if (holder_of(masked, c->node, node, off))
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Checking edits                                                      */

/* 1 when branch `inner` lies inside branch `outer` (-1: the top). */
static int branch_inside(const struct tpl *t, int inner, int outer)
{
	for (int b = inner; b >= 0; b = t->branches[b].parent)
		if (b == outer)
			return 1;
	return outer < 0;
}

/* The action closing or continuing branch `b` (its else or end). */
static int branch_closer(const struct tpl *t, int b)
{
	for (size_t i = 0; i < t->n_actions; i++)
		if (t->actions[i].start == t->branches[b].end &&
		    (t->actions[i].kind == TPL_END ||
		     t->actions[i].kind == TPL_ELSE))
			return (int)i;
	return -1;
}

/*
 * Moves the insertion point *p out of the conditionals that its place
 * `ref` (a branch, -1 for the top) is not in: before the line of the
 * opening action when *p is right after it, else past the line of the
 * conditional's end. Returns 0, or -1 when it cannot.
 */
static int adjust_insertion(const struct tpl *t, size_t *p, int ref)
{
	for (int guard = 0; guard < 256; guard++) {
		int ctx = tpl_context(t, *p, 1), closer, chain;
		size_t line;

		if (ctx == ref)
			return 0;
		if (!branch_inside(t, ctx, ref) || ctx < 0)
			return -1;
		chain = t->branches[ctx].chain;
		line = tpl_line_of(t, t->branches[ctx].start);
		if (t->branches[ctx].index == 0 && t->lines[line].action_line &&
		    line + 1 < t->n_lines && t->lines[line + 1].start == *p &&
		    t->actions[t->chains[chain].open_action].mask_start ==
			    t->lines[line].start) {
			*p = t->lines[line].start;
			continue;
		}
		/* past the end of the whole conditional */
		closer = branch_closer(t, ctx);
		while (closer >= 0 && t->actions[closer].kind == TPL_ELSE) {
			int next = -1;

			for (size_t b = 0; b < t->n_branches; b++)
				if (t->branches[b].chain == chain &&
				    t->branches[b].start == t->actions[closer].end)
					next = (int)b;
			closer = next >= 0 ? branch_closer(t, next) : -1;
		}
		if (closer < 0 || t->actions[closer].place != TPL_PLACE_LINE)
			return -1;
		line = tpl_line_of(t, t->actions[closer].end - 1);
		if (line + 1 >= t->n_lines)
			return -1;
		*p = t->lines[line + 1].start;
	}
	return -1;
}

struct hold {
	enum hold_reason reason;
	int action;
};

/*
 * Where an addition to a block mapping, whose new lines are indented by
 * `indent`, goes when it would go right before whole-line actions that
 * are indented deeper: past them. They fill in the member before it
 * (`tolerations:` then `{{- toYaml .Values.tolerations | nindent 8 }}`),
 * which must not be parted from them.
 */
static size_t past_filling_actions(const struct tjob *tj, size_t p,
				   size_t indent)
{
	const struct tpl *t = &tj->t;

	for (;;) {
		size_t l = tpl_line_of(t, p), i = p, last;
		int fill = -1;

		if (t->lines[l].start != p || !t->lines[l].action_line)
			return p;
		while (i < t->lines[l].end && tj->text[i] == ' ')
			i++;
		for (size_t a = 0; a < t->n_actions; a++)
			if (t->actions[a].start == i &&
			    t->actions[a].kind == TPL_OUTPUT &&
			    t->actions[a].place == TPL_PLACE_LINE)
				fill = (int)a;
		if (fill < 0 || i - p <= indent)
			return p;
		/* past the action's lines */
		last = tpl_line_of(t, t->actions[fill].end - 1);
		if (last + 1 >= t->n_lines)
			return p;
		p = t->lines[last + 1].start;
	}
}


/*
 * Where an addition to a block mapping, whose new lines are indented by
 * `indent`, goes when it would go right before a conditional: past its
 * `{{- end }}`, when every line of the conditional is indented as deep
 * at least (inside the mapping). A reading that does not take the
 * conditional's branch would otherwise add it before, one that does
 * after: this way every reading adds it at one place (a selector added
 * to a spec that ends in `{{- if .Values.cfg }}`).
 */
static size_t past_conditionals(const struct tjob *tj, size_t p,
				size_t indent)
{
	const struct tpl *t = &tj->t;

	for (int guard = 0; guard < 256; guard++) {
		size_t l = tpl_line_of(t, p), end = 0, last;
		const struct tpl_action *open = NULL;
		int closer = -1;

		if (t->lines[l].start != p || !t->lines[l].action_line)
			return p;
		for (size_t i = 0; i < t->n_actions; i++) {
			const struct tpl_action *a = &t->actions[i];

			if (a->start >= t->lines[l].start &&
			    a->start < t->lines[l].end) {
				if (open)
					return p; /* more than one action */
				open = a;
			}
		}
		if (!open || (open->kind != TPL_IF && open->kind != TPL_WITH &&
			      open->kind != TPL_RANGE))
			return p;
		for (size_t b = 0; b < t->n_branches; b++)
			if (t->branches[b].chain == open->chain &&
			    t->branches[b].end > end)
				end = t->branches[b].end;
		for (size_t i = 0; i < t->n_actions; i++)
			if (t->actions[i].start == end &&
			    t->actions[i].kind == TPL_END)
				closer = (int)i;
		if (closer < 0 || t->actions[closer].place != TPL_PLACE_LINE)
			return p;
		last = tpl_line_of(t, t->actions[closer].end - 1);
		if (last + 1 >= t->n_lines)
			return p;
		for (size_t k = l + 1; k < last; k++) {
			const struct tpl_line *line = &t->lines[k];
			size_t i = line->start;

			if (line->action_line)
				continue;
			while (i < line->end && tj->text[i] == ' ')
				i++;
			if (i < line->end && i - line->start < indent)
				return p;
		}
		p = t->lines[last + 1].start;
	}
	return p;
}


/*
 * The node of the first reading's tree `root` that `n` (of a tree the
 * patcher changed) stands for: the same text, the same kind.
 */
static const struct source_node *original_node(const struct source_node *root,
					       const struct source_node *n)
{
	if (root->start == n->start && root->end == n->end &&
	    root->kind == n->kind && root->flow == n->flow)
		return root;
	for (size_t i = 0; i < root->n_children; i++) {
		const struct source_node *c = root->children[i].node;

		if (c->start <= n->start && n->end <= c->end) {
			const struct source_node *found = original_node(c, n);

			if (found)
				return found;
		}
	}
	return NULL;
}

/*
 * The include read as a member of mapping `node` (of the patched tree)
 * that may print a key added to `node`, or -1.
 */
static int member_collision(struct tjob *tj, const struct source_node *node)
{
	if (node->kind != SOURCE_MAPPING)
		return -1;
	for (size_t m = 0; m < node->n_children; m++) {
		const struct source_child *mc = &node->children[m];

		for (size_t a = 0; a < tj->t.n_actions; a++) {
			char ph[16];
			const char *name;
			size_t len;

			if (tj->t.actions[a].place != TPL_PLACE_MEMBER ||
			    strcmp(ph_of(tj, a, ph, sizeof(ph)), mc->key) != 0 ||
			    !tpl_action_define(&tj->t, a, &name, &len))
				continue;
			for (size_t k = 0; k < node->n_children; k++)
				if (node->children[k].node->added &&
				    define_has_key(tj->defines, name, len,
						   node->children[k].key))
					return (int)a;
		}
	}
	return -1;
}

/* Checks (and places) the edits of one trial; 0, or 1 with `h` set. */
static int check_edits(struct tjob *tj, const char *masked, struct tdoc *td,
		       struct text_edits *edits, struct hold *h)
{
	const struct tpl *t = &tj->t;
	const struct source_node *root = td->tree;

	for (size_t i = 0; i < edits->n; i++) {
		struct text_edit *e = &edits->items[i];
		int a = tpl_action_at(t, e->start, e->end), ref;
		size_t holder = td->doc.start, p;
		const struct source_node *node;

		if (a >= 0) {
			h->reason = HOLD_ACTION;
			h->action = a;
			return 1;
		}
		if (e->kind == TEXT_EDIT_RENAME)
			continue;
		node = root ? original_node(root, e->node) : NULL;
		if (!node) {
			h->reason = HOLD_PLACE;
			return 1;
		}
		a = filled_by(tj, masked, &td->doc, root, node,
			      e->kind != TEXT_EDIT_ADD);
		if (a < 0 && e->kind == TEXT_EDIT_ADD)
			a = member_collision(tj, e->node);
		if (a >= 0) {
			h->reason = e->kind == TEXT_EDIT_REMOVE ? HOLD_ACTION
								: HOLD_FILLED;
			h->action = a;
			return 1;
		}
		if (e->start != e->end)
			continue;
		/* an insertion belongs where the member it goes into is */
		if (node != root)
			holder_of(masked, root, node, &holder);
		ref = tpl_context(t, holder, 0);
		p = e->start;
		if (adjust_insertion(t, &p, ref)) {
			int ctx = tpl_context(t, e->start, 1);

			h->reason = HOLD_BRANCH;
			h->action = ctx >= 0 ?
				t->chains[t->branches[ctx].chain].open_action : -1;
			return 1;
		}
		if (node->kind == SOURCE_MAPPING && !node->flow && e->text &&
		    e->len && e->text[e->len - 1] == '\n') {
			p = past_filling_actions(tj, p, strspn(e->text, " "));
			p = past_conditionals(tj, p, strspn(e->text, " "));
		}
		e->start = e->end = p;
		/* nor between a member of its own and the lines an action
		 * fills it with (`resources:` then `{{- toYaml ... }}`) */
		for (size_t x = 0; x < t->n_actions; x++) {
			const struct tpl_action *act = &t->actions[x];
			const struct source_node *owner;
			size_t key = p;

			if (act->place != TPL_PLACE_LINE ||
			    act->kind != TPL_OUTPUT || act->mask_start < p ||
			    act->mask_start >= td->doc.end)
				continue;
			owner = line_owner(masked, root, act->mask_start,
					   td->doc.end);
			if (owner == root || within(owner, node) ||
			    !holder_of(masked, root, owner, &key) || key >= p)
				continue;
			h->reason = HOLD_SPLIT;
			h->action = (int)x;
			return 1;
		}
	}
	return 0;
}

static int edit_same(const struct text_edit *a, const struct text_edit *b)
{
	return a->start == b->start && a->end == b->end && a->len == b->len &&
	       (!a->len || memcmp(a->text, b->text, a->len) == 0) &&
	       (a->text == NULL) == (b->text == NULL);
}

static int edits_hold(const struct text_edits *set, const struct text_edit *e)
{
	for (size_t i = 0; i < set->n; i++)
		if (edit_same(&set->items[i], e))
			return 1;
	return 0;
}

/*
 * Tries the operations ops[0..n) on `td` under the variant's masked text:
 * 0 with `edits` set when they can be made; 1 with `h` (and cand->why)
 * when they cannot; -1 when out of memory.
 */
/*
 * Applies ops[0..n) to `root`; after an op whose `nulls` flag is set, the
 * collection it took a member from becomes null. 0, or -1 when one does
 * not apply.
 */
static int apply_ops(json_t *root, const struct patch_op *ops,
		     const unsigned char *nulls, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (patch_apply_op_copy(root, &ops[i]))
			return -1;
		if (nulls && nulls[i]) {
			char *parent = strdup(ops[i].path), *slash;
			struct patch_op null_op = { .kind = PATCH_REPLACE };
			int rc;

			if (!parent)
				return -1;
			slash = strrchr(parent, '/');
			if (slash)
				*slash = '\0';
			null_op.path = parent;
			null_op.value = json_null();
			rc = slash ? patch_apply_op(root, &null_op) : -1;
			free(parent);
			if (rc)
				return -1;
		}
	}
	return 0;
}

static int try_ops(struct tjob *tj, const char *masked, struct tdoc *td,
		   const struct patch_op *ops, const unsigned char *nulls,
		   size_t n, struct text_edits *edits, struct hold *h,
		   char *why, size_t why_len)
{
	json_t *migrated = json_deep_copy(td->json);
	struct rules_result result;
	struct source_error err;
	int rc = 1;

	memset(edits, 0, sizeof(*edits));
	h->reason = HOLD_NONE;
	h->action = -1;
	if (!migrated)
		return -1;
	if (apply_ops(migrated, ops, nulls, n)) {
		h->reason = HOLD_DEPENDS;
		goto out_free;
	}
	if (source_doc_tree(masked, tj->len, &td->doc, &tj->limits, &err)) {
		h->reason = HOLD_PLACE;
		snprintf(why, why_len, "%.150s", err.message);
		goto out_free;
	}
	rules_result_init(&result);
	result.ops = (struct patch_op *)ops;
	result.n_ops = n;
	if (text_patch_edits(masked, tj->len, &td->doc, &result, migrated,
			     &tj->limits, edits, why, why_len)) {
		h->reason = HOLD_PLACE;
		goto out_free;
	}
	if (check_edits(tj, masked, td, edits, h))
		goto out_clear;
	for (size_t i = 0; i < edits->n; i++)
		if (edits_hold(&td->forbidden, &edits->items[i])) {
			h->reason = HOLD_CONDITIONAL;
			goto out_clear;
		}
	rc = 0;
	goto out_free;
out_clear:
	text_edits_clear(edits);
out_free:
	json_decref(migrated);
	return rc;
}

/*
 * When candidate `c`, a removal, prunes a collection left with nothing
 * (the rules remove a mapping or list whose last member goes), its
 * alternative: the member goes, the collection is left null. In a
 * template the collection often holds conditional members the rules did
 * not see, and its lines must stay. 1 with `alt` (owned) set, 0 when
 * there is none, -1 when out of memory.
 */
static int prune_alternative(struct tdoc *td, const struct patch_op *ops,
			     const unsigned char *nulls, size_t n,
			     const struct candidate *c, struct patch_op *alt)
{
	json_t *before, *target = NULL;
	const char *key;
	json_t *value;
	char *path = NULL;
	int rc = 0;

	if (c->op.kind != PATCH_REMOVE || c->null_after || !td->json)
		return 0;
	if (!(before = json_deep_copy(td->json)))
		return -1;
	if (apply_ops(before, ops, nulls, n) == 0 &&
	    json_is_object(target = json_pointer_get(before, c->op.path)) &&
	    json_object_size(target) == 1) {
		json_object_foreach(target, key, value)
			path = json_pointer_join(c->op.path, key);
		if (!path)
			rc = -1;
	} else if (json_is_array(target) && json_array_size(target) == 1) {
		/* a list whose one item goes (a driver volume, with the
		 * others conditional) */
		if (!(path = json_pointer_join(c->op.path, "0")))
			rc = -1;
	}
	json_decref(before);
	if (!path)
		return rc;
	memset(alt, 0, sizeof(*alt));
	alt->kind = PATCH_REMOVE;
	alt->rule = c->op.rule;
	alt->path = path;
	return 1;
}

/* 1 when an action on line `line` prints something. */
static int line_prints(const struct tjob *tj, const struct tpl_line *line)
{
	for (size_t i = 0; i < tj->t.n_actions; i++)
		if (tj->t.actions[i].kind == TPL_OUTPUT &&
		    tj->t.actions[i].start < line->end &&
		    tj->t.actions[i].end > line->start)
			return 1;
	return 0;
}

/*
 * 1 when the collection at `pointer` holds lines the rules did not see: of
 * actions that print, or of branches this variant does not take (the
 * lines of `if`, `else` and `end` print nothing).
 */
static int holds_unseen_lines(struct tjob *tj, const char *masked,
			      struct tdoc *td, const char *pointer)
{
	struct source_node *node = node_at(td->tree, pointer);

	if (!node || node == td->tree)
		return 0;
	for (size_t l = 0; l < tj->t.n_lines; l++) {
		const struct tpl_line *line = &tj->t.lines[l];
		const struct source_node *owner;

		if (line->start < td->doc.start || line->start >= td->doc.end ||
		    line->start == line->end ||
		    (line->action_line ? !line_prints(tj, line) :
		     masked[line->start] == tj->text[line->start]))
			continue;
		owner = line_owner(masked, td->tree, line->start, td->doc.end);
		if (within(node, owner))
			return 1;
	}
	return 0;
}

/*
 * One pass of settle_doc() with the rules of `banned` (bits 1 << rule)
 * held whole: which candidates are made, given the forbidden edits.
 */
static int settle_pass(struct tjob *tj, const char *masked, struct tdoc *td,
		       unsigned banned, struct patch_op *ops,
		       unsigned char *nulls)
{
	struct text_edits edits;
	struct hold h;
	size_t n = 0, tried = 0;
	char why[160];
	int rc;

	text_edits_clear(&td->edits);
	for (size_t i = 0; i < td->n_cand; i++) {
		struct candidate *c = &td->cand[i];

		if (c->reason == HOLD_VALUE || c->reason == HOLD_RELEASE)
			continue;
		if (banned >> c->op.rule & 1) {
			c->held = 1;
			if (!c->primary) {
				c->reason = HOLD_TOGETHER;
				c->action = -1;
			}
			continue;
		}
		c->held = 0;
		c->primary = 0;
		c->reason = HOLD_NONE;
		c->action = -1;
		nulls[tried] = (unsigned char)c->null_after;
		ops[tried++] = c->op;
	}
	if (tried == 0)
		return 0;
	/* most often everything passes at once */
	rc = try_ops(tj, masked, td, ops, nulls, tried, &edits, &h, why,
		     sizeof(why));
	if (rc <= 0) {
		if (rc == 0)
			td->edits = edits;
		return rc;
	}
	for (size_t i = 0; i < td->n_cand; i++) {
		struct candidate *c = &td->cand[i];
		struct patch_op alt;

		if (c->held)
			continue;
		ops[n] = c->op;
		nulls[n] = (unsigned char)c->null_after;
		rc = try_ops(tj, masked, td, ops, nulls, n + 1, &edits, &h,
			     c->why, sizeof(c->why));
		if (rc == 1 && h.reason != HOLD_DEPENDS) {
			int alt_rc = prune_alternative(td, ops, nulls, n, c,
						       &alt);
			struct hold h2;

			if (alt_rc < 0) {
				rc = -1;
			} else if (alt_rc == 1) {
				ops[n] = alt;
				nulls[n] = 1;
				rc = try_ops(tj, masked, td, ops, nulls, n + 1,
					     &edits, &h2, c->why,
					     sizeof(c->why));
				if (rc == 0) {
					/* from now on, the member alone */
					op_free(&c->op);
					c->op = alt;
					c->null_after = 1;
				} else {
					op_free(&alt);
					ops[n] = c->op;
					nulls[n] = 0;
				}
			}
		}
		if (rc < 0)
			return -1;
		if (rc == 1) {
			c->held = 1;
			c->reason = h.reason;
			c->action = h.action;
			continue;
		}
		n++;
		text_edits_clear(&td->edits);
		td->edits = edits;
	}
	return 0;
}

/* Decides which candidates of `td` are made, given its forbidden edits. */
static int settle_doc(struct tjob *tj, const char *masked, struct tdoc *td)
{
	struct patch_op *ops;
	unsigned char *nulls;
	unsigned banned = 0;
	int rc = 0;

	td->dirty = 0;
	for (size_t i = 0; i < td->n_cand; i++)
		td->cand[i].primary = 0;
	ops = malloc((td->n_cand ? td->n_cand : 1) * sizeof(*ops));
	nulls = calloc(td->n_cand ? td->n_cand : 1, 1);
	if (!ops || !nulls) {
		free(ops);
		free(nulls);
		return -1;
	}
	/* a collection with lines the rules did not see is not pruned: its
	 * member goes, its lines stay */
	for (size_t i = 0, n = 0; i < td->n_cand; i++) {
		struct candidate *c = &td->cand[i];
		struct patch_op alt;

		if (c->reason == HOLD_VALUE || c->reason == HOLD_RELEASE) {
			banned |= 1u << c->op.rule;
			continue;
		}
		nulls[n] = (unsigned char)c->null_after;
		ops[n++] = c->op;
		if (c->op.kind != PATCH_REMOVE ||
		    !holds_unseen_lines(tj, masked, td, c->op.path))
			continue;
		rc = prune_alternative(td, ops, nulls, n - 1, c, &alt);
		if (rc < 0)
			goto out_free;
		if (rc == 1) {
			op_free(&c->op);
			c->op = alt;
			c->null_after = 1;
			ops[n - 1] = c->op;
			nulls[n - 1] = 1;
		}
	}
	/* a rule with a change held has all its changes held */
	for (int pass = 0; pass <= RULE_COUNT; pass++) {
		unsigned more = 0;

		rc = settle_pass(tj, masked, td, banned, ops, nulls);
		if (rc < 0)
			goto out_free;
		for (size_t i = 0; i < td->n_cand; i++)
			if (td->cand[i].held &&
			    !(banned >> td->cand[i].op.rule & 1)) {
				more |= 1u << td->cand[i].op.rule;
				td->cand[i].primary = 1;
			}
		if (!more)
			break;
		banned |= more;
	}
	rc = 0;
out_free:
	free(ops);
	free(nulls);
	return rc;
}

static int forbid(struct tdoc *td, const struct text_edit *e)
{
	struct text_edit *grown = grow(td->forbidden.items,
				       &td->cap_forbidden, td->forbidden.n,
				       sizeof(*grown));
	struct text_edit *f;

	if (!grown)
		return -1;
	td->forbidden.items = grown;
	f = &td->forbidden.items[td->forbidden.n];
	*f = *e;
	f->node = NULL;
	f->text = NULL;
	if (e->text) {
		if (!(f->text = malloc(e->len ? e->len : 1)))
			return -1;
		memcpy(f->text, e->text, e->len);
	}
	td->forbidden.n++;
	td->dirty = 1;
	return 0;
}

/* 1 when variant `v` shows the place of edit `e`. */
static int shows(const struct tpl *t, size_t v, const struct text_edit *e)
{
	return tpl_visible(t, v, tpl_context(t, e->start, e->start == e->end));
}

static int variant_makes(struct tvariant *var, const struct text_edit *e)
{
	for (size_t d = 0; d < var->n_docs; d++)
		if (edits_hold(&var->docs[d].edits, e))
			return 1;
	return 0;
}

/*
 * Settles every document of every variant until the variants agree on
 * the edits of the places they share. Returns 0, 1 when they never
 * agree (nothing is then changed), -1 when out of memory.
 */
static int settle(struct tjob *tj)
{
	for (int round = 0; round < 32; round++) {
		int conflicts = 0;

		for (size_t v = 0; v < tj->n_variants; v++)
			for (size_t d = 0; d < tj->variants[v].n_docs; d++) {
				struct tdoc *td = &tj->variants[v].docs[d];

				if (td->dirty &&
				    settle_doc(tj, tj->variants[v].masked, td))
					return -1;
			}
		for (size_t v = 0; v < tj->n_variants; v++)
			for (size_t d = 0; d < tj->variants[v].n_docs; d++) {
				struct tdoc *td = &tj->variants[v].docs[d];

				for (size_t i = 0; i < td->edits.n; i++) {
					const struct text_edit *e = &td->edits.items[i];

					for (size_t w = 0; w < tj->n_variants; w++) {
						if (w == v || tj->variants[w].skipped ||
						    !shows(&tj->t, w, e) ||
						    variant_makes(&tj->variants[w], e))
							continue;
						if (forbid(td, e))
							return -1;
						conflicts++;
						break;
					}
				}
			}
		if (!conflicts)
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* Reading the variants                                                */

static const char *variant_note(struct tjob *tj, size_t v, char *out,
				size_t size)
{
	const struct tpl *t = &tj->t;

	out[0] = '\0';
	for (size_t c = 0; v && c < t->n_chains; c++) {
		int choice = t->variants[v * t->n_chains + c];

		if (choice) {
			const struct tpl_action *a =
				&t->actions[t->chains[c].open_action];

			snprintf(out, size,
				 " (with branch %d of the conditional at %d:%d)",
				 choice + 1, a->line, a->column);
			break;
		}
	}
	return out;
}

/*
 * The action that prints the `resources` of a mapping on the way to
 * `pointer` (a container whose requests the template does not show), or
 * -1.
 */
static int resources_unseen(struct tjob *tj, const char *masked,
			    struct tdoc *td, const char *pointer)
{
	struct source_node *node = td->tree;
	char token[1024];

	while (node && node->kind != SOURCE_SCALAR) {
		struct source_node *next = NULL;

		if (node->kind == SOURCE_MAPPING)
			for (size_t i = 0; i < node->n_children; i++) {
				const struct source_child *c = &node->children[i];
				int a;

				if (strcmp(c->key, "resources") != 0)
					continue;
				a = filled_by(tj, masked, &td->doc, td->tree,
					      c->node, 0);
				if (a < 0 && c->node->kind == SOURCE_SCALAR)
					a = inline_action_in(tj, c->node);
				if (a >= 0)
					return a;
			}
		if (!*pointer || node->alias ||
		    json_pointer_next(&pointer, token, sizeof(token)))
			break;
		if (node->kind == SOURCE_MAPPING) {
			for (size_t i = 0; i < node->n_children; i++)
				if (strcmp(node->children[i].key, token) == 0)
					next = node->children[i].node;
		} else {
			char *end;
			unsigned long idx = strtoul(token, &end, 10);

			if (!*end && *token && idx < node->n_children)
				next = node->children[idx].node;
		}
		node = next;
	}
	return -1;
}

static void pointer_tail(const char *pointer, int levels, char *out,
			 size_t size);
static json_t *action_value(struct tjob *tj, int a);

/* The findings of `res` on document `td`, as the job wants them. */
static int collect_findings(struct tjob *tj, const char *masked,
			    struct tdoc *td, const struct rules_result *res)
{
	for (size_t i = 0; i < res->n_findings; i++) {
		const struct finding *f = &res->findings[i];
		enum severity severity = f->severity;
		struct source_node *node;
		char message[1200];
		int line, column, a = -1;

		if (!tj->job->lint && f->fixed)
			continue;
		source_locate(td->tree, f->pointer, &line, &column);
		snprintf(message, sizeof(message), "%s", f->message);
		node = node_at(td->tree, f->pointer);
		if (severity == SEVERITY_ERROR && node) {
			/* what it misses may be what an action prints */
			a = filled_by(tj, masked, &td->doc, td->tree, node, 1);
			if (a < 0)
				a = inline_action_in(tj, node);
			if (a >= 0 && tj->t.actions[a].place == TPL_PLACE_VALUE &&
			    !tj->t.actions[a].as_number) {
				/* a string does not do here: read again with
				 * an integer (a GPU count, say) */
				tj->t.actions[a].as_number = 1;
				tj->reread = 1;
			}
		}
		if (a >= 0) {
			severity = SEVERITY_WARNING;
		} else if (severity != SEVERITY_ERROR &&
			   (a = resources_unseen(tj, masked, td, f->pointer)) >= 0) {
			/* about a container whose requests an action prints:
			 * what is found may not hold once rendered, unless
			 * the chart's values say what it prints */
			if (action_value(tj, a))
				a = -1;
			else
				severity = SEVERITY_INFO;
		}
		if (a >= 0 && f->severity == SEVERITY_ERROR &&
		    node->kind == SOURCE_SCALAR &&
		    tj->t.actions[a].place == TPL_PLACE_VALUE &&
		    tj->t.actions[a].mask_start >= node->start &&
		    tj->t.actions[a].mask_start < node->end) {
			/* the value is wholly the action's: what the rule
			 * found is gpumend's placeholder, not the chart's */
			const struct tpl_action *act = &tj->t.actions[a];
			char key[256];

			pointer_tail(f->pointer, 1, key, sizeof(key));
			snprintf(message, sizeof(message),
				 "'%.200s' comes from `%.*s`; change it by hand",
				 key, (int)(act->end - act->start > 600 ? 600 :
					    act->end - act->start),
				 tj->text + act->start);
			line = act->line;
			column = act->column;
		} else if (a >= 0) {
			snprintf(message, sizeof(message),
				 "%.900s (the template action at %d:%d may settle this: check what it prints)",
				 f->message, tj->t.actions[a].line,
				 tj->t.actions[a].column);
		}
		if (add_finding(tj, td, line, column,
				rule_info_get(f->rule)->name, severity, message,
				f->pointer))
			return -1;
	}
	return 0;
}

/* 1 when `x` under valuation 1 and `y` under valuation `uy` are the
 * placeholders of one action that is a whole scalar. */
static int same_placeholder(const struct tjob *tj, json_t *x, json_t *y,
			    int uy)
{
	for (size_t a = 0; a < tj->t.n_actions; a++) {
		char p1[16], p2[16];

		if (tj->t.actions[a].place != TPL_PLACE_VALUE ||
		    tj->t.actions[a].kind != TPL_OUTPUT)
			continue;
		tpl_placeholder(&tj->t, a, 1, p1, sizeof(p1));
		tpl_placeholder(&tj->t, a, uy, p2, sizeof(p2));
		if ((json_is_string(x) ?
		     strcmp(json_string_value(x), p1) == 0 :
		     json_is_integer(x) &&
		     json_integer_value(x) == strtoll(p1, NULL, 10)) &&
		    (json_is_string(y) ?
		     strcmp(json_string_value(y), p2) == 0 :
		     json_is_integer(y) &&
		     json_integer_value(y) == strtoll(p2, NULL, 10)))
			return 1;
	}
	return 0;
}

/*
 * 1 when the action text of `a` can stand inside a plain scalar the
 * rules wrote: no quotes, escapes, or YAML indicators in it.
 */
static int embeddable(const struct tjob *tj, size_t a)
{
	const struct tpl_action *act = &tj->t.actions[a];

	for (size_t i = act->start; i < act->end; i++)
		if (strchr("\"'\\:#\n\r", tj->text[i]))
			return 0;
	return 1;
}

/*
 * 1 when strings `x` (valuation 1) and `y` (valuation 2) are the same
 * but for placeholders of actions that are whole scalars, copied into
 * them ("s1234567=4096Mi" and "s2234567=4096Mi": a memory record naming a
 * container whose name an action prints).
 */
static int string_copies(const struct tjob *tj, const char *x, const char *y,
			 int uy)
{
	while (*x || *y) {
		size_t a;

		if (*x == *y && *x && !(*x == 's' || *x == 'x' ||
					(*x >= '1' && *x <= '2'))) {
			x++;
			y++;
			continue;
		}
		for (a = 0; a < tj->t.n_actions; a++) {
			char p1[16], p2[16];
			size_t n1, n2;

			if (tj->t.actions[a].place != TPL_PLACE_VALUE ||
			    tj->t.actions[a].kind != TPL_OUTPUT)
				continue;
			tpl_placeholder(&tj->t, a, 1, p1, sizeof(p1));
			tpl_placeholder(&tj->t, a, uy, p2, sizeof(p2));
			n1 = strlen(p1);
			n2 = strlen(p2);
			if (strncmp(x, p1, n1) == 0 && strncmp(y, p2, n2) == 0 &&
			    !(x[n1] >= '0' && x[n1] <= '9') && embeddable(tj, a)) {
				x += n1;
				y += n2;
				break;
			}
		}
		if (a < tj->t.n_actions)
			continue;
		if (*x != *y || !*x)
			return 0;
		x++;
		y++;
	}
	return 1;
}

/*
 * 1 when `x` (valuation 1) and `y` (valuation 2) differ only where they
 * hold an action's own value: an operation that copies what an action
 * prints, which the template can write as the action itself.
 */
static int equal_but_copies(const struct tjob *tj, json_t *x, json_t *y,
			    int uy)
{
	const char *key;
	json_t *v;
	size_t i;

	if (same_placeholder(tj, x, y, uy))
		return 1;
	if (json_typeof(x) != json_typeof(y))
		return 0;
	switch (json_typeof(x)) {
	case JSON_OBJECT:
		if (json_object_size(x) != json_object_size(y))
			return 0;
		json_object_foreach(x, key, v)
			if (!json_member(y, key) ||
			    !equal_but_copies(tj, v, json_member(y, key), uy))
				return 0;
		return 1;
	case JSON_ARRAY:
		if (json_array_size(x) != json_array_size(y))
			return 0;
		json_array_foreach(x, i, v)
			if (!equal_but_copies(tj, v, json_array_get(y, i), uy))
				return 0;
		return 1;
	case JSON_STRING:
		return json_equal(x, y) ||
		       string_copies(tj, json_string_value(x),
				     json_string_value(y), uy);
	default:
		return json_equal(x, y);
	}
}

/* 1 when `a` (valuation 1) and `b` (valuation `ub`) are one operation
 * copying an action's value. */
static int op_copies(const struct tjob *tj, const struct patch_op *a,
		     const struct patch_op *b, int ub)
{
	struct patch_op a_bare = *a, b_bare = *b;

	a_bare.value = b_bare.value = NULL;
	return a->value && b->value && patch_op_equal(&a_bare, &b_bare) &&
	       equal_but_copies(tj, a->value, b->value, ub);
}

/* Candidates: what the rules do alike under valuations 1 and 2 (or what
 * copies an action's value); the rest, and what they do under 3 only, is
 * held. */
static int collect_candidates(struct tjob *tj, struct tdoc *td,
			      const struct rules_result *r1,
			      const struct rules_result *r2,
			      const struct rules_result *r3)
{
	unsigned char *used = calloc(r2->n_ops + 1, 1);
	int rc = -1;

	if (!used)
		return -1;
	for (size_t i = 0; i < r1->n_ops; i++) {
		size_t j;

		for (j = 0; j < r2->n_ops; j++)
			if (!used[j] && patch_op_equal(&r1->ops[i], &r2->ops[j]))
				break;
		if (j == r2->n_ops)
			for (j = 0; j < r2->n_ops; j++)
				if (!used[j] &&
				    op_copies(tj, &r1->ops[i], &r2->ops[j], 2))
					break;
		if (j < r2->n_ops)
			used[j] = 1;
		if (add_candidate(td, &r1->ops[i], j == r2->n_ops,
				  j == r2->n_ops ? HOLD_VALUE : HOLD_NONE))
			goto out_free;
	}
	for (size_t i = 0; i < r3->n_ops; i++) {
		size_t j;

		for (j = 0; j < r1->n_ops; j++)
			if (patch_op_equal(&r3->ops[i], &r1->ops[j]) ||
			    op_copies(tj, &r1->ops[j], &r3->ops[i], 3))
				break;
		if (j == r1->n_ops &&
		    add_candidate(td, &r3->ops[i], 1, HOLD_VALUE))
			goto out_free;
	}
	rc = 0;
out_free:
	free(used);
	return rc;
}

/* 1 when mapping key `key` stands for an include read as members. */
static int member_key(struct tjob *tj, const char *key)
{
	size_t n = strlen(key), len = 0;
	int a = placeholder_here(tj, key, n, 0, 0, &len);

	return a >= 0 && len == n &&
	       tj->t.actions[a].place == TPL_PLACE_MEMBER;
}

/*
 * The selector the rules add for apps/v1 copies the pod template's
 * labels; those whose key or value reads something that varies per
 * release (`chart: {{ .Chart.Name }}-{{ .Chart.Version }}`) are left
 * out, with a note: spec.selector cannot change once created, and the
 * next `helm upgrade` would be refused. When no label is left, the
 * selector is held. 0, or -1 when out of memory.
 */
/* 1 when label `key: value` of a selector reads something that varies
 * per release; -1 when out of memory. */
static int label_varies(struct tjob *tj, const char *key, json_t *value)
{
	const char *v = json_string_value(value);
	char *text = unmask_text(tj, key, strlen(key), 0, NULL);
	char *vtext = v ? unmask_text(tj, v, strlen(v), 0, NULL) : NULL;
	int varies = -1;

	if (text && (!v || vtext))
		varies = text_varies(tj->defines, text, strlen(text), 0) ||
			 (vtext && text_varies(tj->defines, vtext,
					       strlen(vtext), 0));
	free(text);
	free(vtext);
	return varies;
}

static int steady_selectors(struct tjob *tj, struct tdoc *td)
{
	for (size_t i = 0; i < td->n_cand; i++) {
		struct candidate *c = &td->cand[i];
		json_t *labels = json_member(c->op.value, "matchLabels");
		const char *key;
		json_t *value, *tmp;
		size_t kept = 0;
		int varies;

		if (c->held || c->op.kind != PATCH_ADD ||
		    c->op.rule != RULE_DEPRECATED_WORKLOAD_API ||
		    strcmp(c->op.path, "/spec/selector") != 0 ||
		    !json_is_object(labels))
			continue;
		json_object_foreach(labels, key, value) {
			if ((varies = label_varies(tj, key, value)) < 0)
				return -1;
			kept += !varies;
		}
		if (kept == json_object_size(labels))
			continue;
		if (!kept) {
			c->held = 1;
			c->reason = HOLD_RELEASE;
			continue;
		}
		json_object_foreach_safe(labels, tmp, key, value) {
			char where[1200], message[1400];
			int line, column;

			if ((varies = label_varies(tj, key, value)) < 0)
				return -1;
			if (!varies)
				continue;
			snprintf(where, sizeof(where),
				 "/spec/template/metadata/labels/%.1000s", key);
			source_locate(td->tree, where, &line, &column);
			snprintf(message, sizeof(message),
				 "the selector added for apps/v1 leaves out %s'%.1000s', which varies per release: a selector cannot change once created",
				 member_key(tj, key) ? "the labels of " :
				 "the label ", key);
			if (add_finding(tj, td, line, column,
					rule_info_get(c->op.rule)->name,
					SEVERITY_INFO, message, where) ||
			    json_object_del(labels, key))
				return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* What the chart's own values make of the actions                     */

/* The value action `a` reads from the chart's values.yaml, or NULL. */
static json_t *action_value(struct tjob *tj, int a)
{
	const struct tpl_action *act = &tj->t.actions[a];

	return chart_action_value(tj->values, tj->text + act->start,
				  act->end - act->start);
}

/*
 * `image` (the string of `node`, under any valuation) with
 * each action in it replaced by what the values give it, into `out`:
 * 1 when every action is a value of the values file, else 0.
 */
static int resolved_image(struct tjob *tj, const struct source_node *node,
			  const char *image, char *out, size_t size)
{
	int found = 0;

	snprintf(out, size, "%s", image);
	for (size_t a = 0; a < tj->t.n_actions; a++) {
		const struct tpl_action *act = &tj->t.actions[a];
		json_t *value;
		char text[512], ph[4096], rest[1024];
		char *at;
		size_t k;

		if (act->place == TPL_PLACE_LINE || act->mask_start < node->start ||
		    act->mask_start >= node->end)
			continue;
		if (act->kind != TPL_OUTPUT)
			continue;
		value = action_value(tj, (int)a);
		if (json_is_string(value))
			snprintf(text, sizeof(text), "%s", json_string_value(value));
		else if (json_is_integer(value))
			snprintf(text, sizeof(text), "%lld",
				 (long long)json_integer_value(value));
		else
			return 0;
		if (act->place == TPL_PLACE_VALUE) {
			snprintf(out, size, "%s", text);
			return 1;
		}
		k = tpl_inner_placeholder(&tj->t, a, ph, sizeof(ph) - 1);
		if (!k)
			return 0;
		ph[k] = '\0';
		if (!(at = strstr(out, ph)))
			return 0;
		snprintf(rest, sizeof(rest), "%s", at + k);
		snprintf(at, size - (size_t)(at - out), "%s%s", text, rest);
		found = 1;
	}
	return found;
}

/*
 * Reads into `json` (a document of any valuation as the rules are to see
 * it; td->json stays as the template reads) what the chart's own values
 * make of the actions that the rules judge a container by: an `image`
 * built from values (`"{{ .Values.image.repository }}:{{ .Values.image.tag
 * }}"`) is the image they give, so that obsolete components and GPU
 * images are told from others; `resources` that an action prints from
 * values that request a GPU read as one GPU of the target resource, so
 * that no rule takes the container for one that requests none (what the
 * values request is theirs to migrate, in the values file).
 */
static int resolve_values(struct tjob *tj, const char *masked,
			  const struct tdoc *td,
			  const struct source_node *node, json_t *json,
			  int depth)
{
	if (!node || !json || node->alias || depth > 64)
		return 0;
	for (size_t i = 0; i < node->n_children; i++) {
		const struct source_child *c = &node->children[i];
		json_t *child = node->kind == SOURCE_MAPPING ?
			json_member(json, c->key) : json_array_get(json, i);

		if (node->kind == SOURCE_MAPPING && json_is_object(json) &&
		    strcmp(c->key, "image") == 0 && json_is_string(child) &&
		    c->node->kind == SOURCE_SCALAR) {
			char image[1024];

			if (resolved_image(tj, c->node, json_string_value(child),
					   image, sizeof(image)) &&
			    json_object_set_new(json, "image", json_string(image)))
				return -1;
			continue;
		}
		if (node->kind == SOURCE_MAPPING && json_is_object(json) &&
		    strcmp(c->key, "resources") == 0 &&
		    c->node->kind == SOURCE_SCALAR) {
			int a = filled_by(tj, masked, &td->doc, td->tree,
					  c->node, 0);
			json_t *value;

			if (a < 0)
				a = inline_action_in(tj, c->node);
			value = a >= 0 ? action_value(tj, a) : NULL;
			if (value && rules_resources_request_gpu(tj->job->cfg,
								 value) &&
			    json_object_set_new(json, "resources", json_pack(
					"{s:{s:i}}", "limits",
					tj->job->cfg->gpu_resource, 1)))
				return -1;
			continue;
		}
		if (resolve_values(tj, masked, td, c->node, child, depth + 1))
			return -1;
	}
	return 0;
}

/*
 * Holds the gpu-visibility changes of containers whose `resources` an
 * action prints that the chart's values do not settle: "void" would hide
 * the GPUs of a container that may well request them.
 */
static int hold_unseen_requests(struct tjob *tj, const char *masked,
				struct tdoc *td)
{
	for (size_t i = 0; i < td->n_cand; i++) {
		struct candidate *c = &td->cand[i];
		int a;

		if (c->held || c->op.rule != RULE_GPU_VISIBILITY)
			continue;
		a = resources_unseen(tj, masked, td, c->op.path);
		if (a < 0 || action_value(tj, a))
			continue;
		c->held = 1;
		c->reason = HOLD_VALUE;
		c->action = a;
	}
	return 0;
}

static int run_rules(const struct config *cfg, int report_only, json_t *json,
		     struct rules_result *res, struct source_error *err,
		     int line)
{
	struct rules_options opts = {
		.offline = 1, .report_only = report_only,
		.read_json = json_scan_read_value,
	};
	struct rules_error rerr;

	rules_result_init(res);
	if (!json_is_object(json))
		return 0;
	if (rules_apply(cfg, &opts, json, res, &rerr) == 0)
		return 0;
	err->line = line;
	err->column = 0;
	snprintf(err->message, sizeof(err->message),
		 "internal error at '%.80s': %.120s", rerr.pointer,
		 rerr.message);
	return -1;
}

/* Reads variant `v` and runs the rules over its documents. */
static int read_variant(struct tjob *tj, size_t v, struct source_error *err)
{
	struct tvariant *var = &tj->variants[v];
	int lint = tj->job->lint, valuations = lint ? 1 : 3, rc = -1;
	char *masked[3] = { NULL, NULL, NULL };
	struct source_parser *parser[3] = { NULL, NULL, NULL };
	char note[120];

	for (int u = 0; u < valuations; u++) {
		if (!(masked[u] = malloc(tj->len ? tj->len : 1)))
			goto out_nomem;
		tpl_mask(&tj->t, v, u + 1, masked[u]);
		if (!(parser[u] = source_parser_new(masked[u], tj->len,
						    &tj->limits)))
			goto out_nomem;
		if (u)
			source_parser_set_tree(parser[u], 0);
	}
	for (;;) {
		struct source_doc docs[3];
		struct rules_result res[3];
		struct tdoc *td, *grown;
		int got = 0;

		memset(docs, 0, sizeof(docs));
		for (int u = 0; u < valuations; u++) {
			int r = source_next_doc(parser[u], &docs[u], err);

			if (r < 0) {
				char message[sizeof(err->message)];

				tj->syntax = 1;
				snprintf(message, sizeof(message), "%s",
					 err->message);
				snprintf(err->message, sizeof(err->message),
					 "%.150s%s", message,
					 variant_note(tj, v, note, sizeof(note)));
				for (int k = 0; k < u; k++)
					source_doc_clear(&docs[k]);
				goto out_free;
			}
			if (u == 0)
				got = r;
			else if (r != got) {
				snprintf(err->message, sizeof(err->message),
					 "the template reads differently with other placeholders");
				for (int k = 0; k <= u; k++)
					source_doc_clear(&docs[k]);
				goto out_free;
			}
		}
		if (!got)
			break;
		grown = grow(var->docs, &var->cap_docs, var->n_docs,
			     sizeof(*grown));
		if (!grown) {
			for (int u = 0; u < valuations; u++)
				source_doc_clear(&docs[u]);
			goto out_nomem;
		}
		var->docs = grown;
		td = &var->docs[var->n_docs++];
		memset(td, 0, sizeof(*td));
		td->doc = docs[0];
		td->tree = td->doc.root;
		td->doc.root = NULL;
		td->json = td->doc.json;
		td->doc.json = NULL;
		td->dirty = 1;
		if (td->json && !(td->json = json_deep_copy(td->json))) {
			td->json = docs[0].json;
			for (int u = 1; u < valuations; u++)
				source_doc_clear(&docs[u]);
			goto out_nomem;
		}
		for (int u = 0; u < valuations; u++) {
			json_t *json = u ? docs[u].json : docs[0].json;
			int nomem;

			rules_result_init(&res[u]);
			nomem = tj->values &&
				resolve_values(tj, masked[0], td, td->tree,
					       json, 0);
			if (nomem || run_rules(tj->job->cfg, lint, json,
					       &res[u], err, td->doc.line)) {
				for (int k = 0; k <= u; k++)
					rules_result_clear(&res[k]);
				json_decref(docs[0].json);
				for (int k = 1; k < valuations; k++)
					source_doc_clear(&docs[k]);
				if (nomem)
					goto out_nomem;
				goto out_free;
			}
		}
		rc = collect_findings(tj, masked[0], td, &res[0]);
		if (!rc && !lint)
			rc = collect_candidates(tj, td, &res[0], &res[1],
						&res[2]);
		if (!rc && !lint)
			rc = steady_selectors(tj, td);
		if (!rc && !lint)
			rc = hold_unseen_requests(tj, masked[0], td);
		for (int u = 0; u < valuations; u++)
			rules_result_clear(&res[u]);
		json_decref(docs[0].json);
		for (int u = 1; u < valuations; u++)
			source_doc_clear(&docs[u]);
		if (rc)
			goto out_nomem;
		rc = -1;
	}
	var->masked = masked[0];
	masked[0] = NULL;
	rc = 0;
	goto out_free;
out_nomem:
	tj->oom = 1;
	snprintf(err->message, sizeof(err->message), "out of memory");
out_free:
	for (int u = 0; u < 3; u++) {
		source_parser_free(parser[u]);
		free(masked[u]);
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* Reporting what is held                                              */

/* The last `levels` tokens of `pointer`, dotted, in `out`. */
static void pointer_tail(const char *pointer, int levels, char *out,
			 size_t size)
{
	const char *starts[64];
	int n = 0;
	size_t len = 0;

	for (const char *p = pointer; *p && n < 64; ) {
		starts[n++] = p;
		p = strchr(p + 1, '/');
		if (!p)
			break;
	}
	out[0] = '\0';
	for (int i = n > levels ? n - levels : 0; i < n; i++) {
		const char *p = starts[i];
		char token[256];

		if (json_pointer_next(&p, token, sizeof(token)))
			break;
		len += (size_t)snprintf(out + len, len < size ? size - len : 0,
					"%s%s", len ? "." : "", token);
		if (len >= size)
			break;
	}
}

static void describe_op(const struct patch_op *op, int with_value, char *out,
			size_t size)
{
	char what[300], from[200];
	char *value = op->value && with_value ?
		json_text_new(op->value, JSON_COMPACT) : NULL;
	const char *v = value ? value : "?";
	int cut = value && strlen(value) > 80;

	pointer_tail(op->path, 2, what, sizeof(what));
	switch (op->kind) {
	case PATCH_MOVE:
		pointer_tail(op->from, 2, from, sizeof(from));
		snprintf(out, size, "renaming '%.150s' to '%.150s'", from, what);
		break;
	case PATCH_REMOVE:
		snprintf(out, size, "removing '%.200s'", what);
		break;
	case PATCH_REPLACE:
		if (value)
			snprintf(out, size, "setting '%.200s' to %.80s%s", what,
				 v, cut ? "..." : "");
		else
			snprintf(out, size, "setting '%.200s'", what);
		break;
	case PATCH_ADD:
		if (value)
			snprintf(out, size, "adding '%.200s: %.80s%s'", what, v,
				 cut ? "..." : "");
		else
			snprintf(out, size, "adding '%.200s'", what);
		break;
	}
	free(value);
}

/* What each reason says, with the action concerned or without one. */
static const struct {
	const char *at;
	const char *plain;
} hold_texts[] = {
	[HOLD_NONE] = { "it cannot be made (%d:%d)", "it cannot be made" },
	[HOLD_VALUE] = {
		"it depends on what the template action at %d:%d prints",
		"it depends on what the template's actions print" },
	[HOLD_ACTION] = {
		"it would change the template action at %d:%d",
		"it would change a template action" },
	[HOLD_FILLED] = {
		"the template action at %d:%d fills in this part",
		"a template action fills in this part" },
	[HOLD_BRANCH] = {
		"it would land inside the conditional at %d:%d",
		"it would land inside a conditional" },
	[HOLD_CONDITIONAL] = {
		"it does not hold for every branch of the template's conditionals (%d:%d)",
		"it does not hold for every branch of the template's conditionals" },
	[HOLD_DEPENDS] = {
		"it depends on a change that cannot be made (%d:%d)",
		"it depends on a change that cannot be made" },
	[HOLD_PLACE] = { "it cannot be placed (%d:%d)", "it cannot be placed" },
	[HOLD_RELEASE] = {
		"every label it would copy varies per release, as the template action at %d:%d does, and a selector cannot change once created",
		"every label it would copy varies per release, and a selector cannot change once created" },
	[HOLD_READBACK] = { "%d:%d", "its document does not read back" },
	[HOLD_TOGETHER] = {
		"it goes with a change of the same rule that cannot be made here (%d:%d)",
		"it goes with a change of the same rule that cannot be made here" },
	[HOLD_SPLIT] = {
		"it would land between a key and the template action at %d:%d that fills it in",
		"it would land between a key and the template action that fills it in" },
};

static int report_held(struct tjob *tj, struct tdoc *td,
			const struct candidate *c)
{
	const struct tpl_action *a = c->action >= 0 ?
		&tj->t.actions[c->action] : NULL;
	char desc[400], reason[300], message[900];
	int line, column, together = 0;

	source_locate(td->tree, c->op.kind == PATCH_MOVE ? c->op.from :
			c->op.path, &line, &column);
	if (!a && c->reason == HOLD_VALUE) {
		/* the action whose value it depends on, when it is there */
		struct source_node *n = node_at(td->tree, c->op.kind == PATCH_MOVE ?
						c->op.from : c->op.path);
		int i = n ? inline_action_in(tj, n) : -1;

		a = i >= 0 ? &tj->t.actions[i] : NULL;
	}
	describe_op(&c->op, c->reason != HOLD_VALUE, desc, sizeof(desc));
	if (c->reason == HOLD_PLACE || c->reason == HOLD_READBACK)
		snprintf(reason, sizeof(reason), "%s", c->why[0] ? c->why :
			 "it cannot be placed");
	else if (a)
		snprintf(reason, sizeof(reason), hold_texts[c->reason].at,
			 a->line, a->column);
	else
		snprintf(reason, sizeof(reason), "%s",
			 hold_texts[c->reason].plain);
	if (a && c->reason != HOLD_BRANCH) {
		/* the place to change: the action */
		line = a->line;
		column = a->column;
	}
	for (size_t i = 0; i < td->n_cand; i++)
		if (td->cand[i].held && td->cand[i].reason == HOLD_TOGETHER &&
		    td->cand[i].op.rule == c->op.rule)
			together = 1;
	snprintf(message, sizeof(message),
		 "not changed in the template: %s; %s; change it by hand%s",
		 desc, reason, together ?
		 " (the rule's other changes here are left as well)" : "");
	return add_finding(tj, td, line, column,
			   rule_info_get(c->op.rule)->name, SEVERITY_WARNING,
			   message, c->op.path);
}

/* ------------------------------------------------------------------ */
/* Writing the result                                                  */

/* An edit to write, and the order it was made in. */
struct placed_edit {
	struct text_edit *edit;
	size_t seq;
};

static int edit_order(const void *a, const void *b)
{
	const struct placed_edit *pa = a, *pb = b;
	const struct text_edit *x = pa->edit, *y = pb->edit;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if ((x->start == x->end) != (y->start == y->end))
		return x->start == x->end ? -1 : 1;
	return pa->seq < pb->seq ? -1 : pa->seq > pb->seq;
}

/*
 * The placeholders in the text of edit `e` back to what the template must
 * hold there: the actions inside scalars (copied with the scalar), those
 * that are whole scalars (an operation copying what they print) and the
 * includes read as members (copied whole). Returns 0, or -1 when out of
 * memory.
 */
static int unmask_edit(struct tjob *tj, struct text_edit *e)
{
	size_t len;
	char *text;

	if (!e->text)
		return 0;
	if (!(text = unmask_text(tj, e->text, e->len, 1, &len)))
		return -1;
	free(e->text);
	e->text = text;
	e->len = len;
	return 0;
}

/*
 * An action that is a whole scalar, copied into a longer string, stands
 * inside that scalar once written: read again, it is a placeholder of its
 * own kind. The strings of `value` are made to read so. 0, or -1 when
 * out of memory.
 */
static int embed_as_read(struct tjob *tj, json_t *value)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_object(value)) {
		json_object_foreach(value, key, v)
			if (embed_as_read(tj, v))
				return -1;
		return 0;
	}
	if (json_is_array(value)) {
		json_array_foreach(value, i, v)
			if (embed_as_read(tj, v))
				return -1;
		return 0;
	}
	if (json_is_string(value)) {
		const char *text = json_string_value(value);
		size_t n = strlen(text);
		struct buf b;
		int changed = 0, rc = 0;

		buf_init(&b, 0);
		for (size_t k = 0; k < n && !rc; ) {
			size_t len = 0;
			int a = placeholder_here(tj, text, n, k, 0, &len);
			char inner[4096];
			size_t m;

			if (a >= 0 && tj->t.actions[a].place == TPL_PLACE_VALUE &&
			    len < n &&
			    (m = tpl_inner_placeholder(&tj->t, (size_t)a, inner,
							sizeof(inner))) > 0) {
				rc = buf_append(&b, inner, m);
				changed = 1;
				k += len;
			} else {
				rc = buf_putc(&b, text[k++]);
			}
		}
		if (!rc && changed)
			rc = buf_putc(&b, '\0') ||
			     json_string_set(value, b.data) ? -1 : 0;
		buf_free(&b);
		return rc;
	}
	return 0;
}

/* The documents variant `v` reads from `text` under valuation 1: 0 when
 * they are docs[0..n), else 1 with *at the first that is not. */
static int read_back(struct tjob *tj, const struct tpl *t, size_t v,
		     size_t len, json_t **docs, size_t n, size_t *at)
{
	char *masked = malloc(len ? len : 1);
	struct source_parser *p;
	struct source_doc doc;
	struct source_error err;
	size_t i = 0;
	int got, same = 1;

	if (!masked)
		return -1;
	tpl_mask(t, v, 1, masked);
	p = source_parser_new(masked, len, &tj->limits);
	if (!p) {
		free(masked);
		return -1;
	}
	source_parser_set_tree(p, 0);
	while (same && (got = source_next_doc(p, &doc, &err)) > 0) {
		if (i >= n || !((!doc.json && !docs[i]) ||
				(doc.json && docs[i] &&
				 json_equal(doc.json, docs[i])))) {
			same = 0;
			*at = i;
		}
		i++;
		source_doc_clear(&doc);
	}
	if (same && (got < 0 || i != n)) {
		same = 0;
		*at = n;
	}
	source_parser_free(p);
	free(masked);
	return same ? 0 : 1;
}

/*
 * Applies the agreed edits to the template into `out`. Returns 0, 1 when
 * the result does not read back as the accepted operations say (`why`
 * set, and *bad the document that does not, when one is to blame;
 * nothing appended), -1 when out of memory.
 */
static int write_result(struct tjob *tj, struct buf *out, char *why,
			size_t why_len, struct tdoc **bad_doc)
{
	struct placed_edit *all = NULL;
	size_t n = 0, cap = 0, pos = 0, mark = out->len, next = 0;
	size_t *moved = NULL;      /* where each action is in the result */
	struct tpl t2;
	struct tpl_error terr;
	int rc = -1;

	*bad_doc = NULL;
	for (size_t v = 0; v < tj->n_variants; v++)
		for (size_t d = 0; d < tj->variants[v].n_docs; d++) {
			struct text_edits *e = &tj->variants[v].docs[d].edits;

			for (size_t i = 0; i < e->n; i++) {
				struct placed_edit *grown = grow(all, &cap, n,
								 sizeof(*grown));

				if (!grown)
					goto out_free;
				all = grown;
				if (unmask_edit(tj, &e->items[i]))
					goto out_free;
				all[n].edit = &e->items[i];
				all[n].seq = n;
				n++;
			}
		}
	if (n == 0) {
		rc = buf_append(out, tj->text, tj->len) ? -1 : 0;
		goto out_free;
	}
	qsort(all, n, sizeof(*all), edit_order);
	if (!(moved = malloc((tj->t.n_actions + 1) * sizeof(*moved))))
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		const struct text_edit *e = all[i].edit;
		int seen = 0;

		/* the same edit made under several variants is made once */
		for (size_t k = i; k > 0 && all[k - 1].edit->start == e->start;
		     k--)
			if (edit_same(all[k - 1].edit, e))
				seen = 1;
		if (seen)
			continue;
		if (e->start < pos) {
			snprintf(why, why_len, "two changes overlap");
			rc = 1;
			goto out_undo;
		}
		for (; next < tj->t.n_actions &&
		       tj->t.actions[next].start < e->start; next++)
			moved[next] = out->len - mark +
				      tj->t.actions[next].start - pos;
		if (buf_append(out, tj->text + pos, e->start - pos) ||
		    (e->text && buf_append(out, e->text, e->len)))
			goto out_free;
		pos = e->end;
	}
	for (; next < tj->t.n_actions; next++)
		moved[next] = out->len - mark + tj->t.actions[next].start - pos;
	if (buf_append(out, tj->text + pos, tj->len - pos))
		goto out_free;

	/* the result, read through its masks, is what the rules made */
	if (tpl_scan(out->data + mark, out->len - mark, &t2, &terr)) {
		snprintf(why, why_len, "the edited template does not scan: %s",
			 terr.message);
		rc = 1;
		goto out_undo;
	}
	if (tj->members)
		tpl_mark_members(&t2, define_known, tj->defines);
	/* the actions read as integers, read so again: each where it went
	 * (the same action text may be a string elsewhere: a count in
	 * both branches of an if/else), a copy as its original, of the
	 * same text and quoted alike (a quoted label is a string) */
	for (size_t i = 0, j = 0; i < t2.n_actions; i++) {
		const struct tpl_action *copy = &t2.actions[i];

		while (j < tj->t.n_actions && moved[j] < copy->start)
			j++;
		if (j < tj->t.n_actions && moved[j] == copy->start) {
			t2.actions[i].as_number = tj->t.actions[j].as_number;
			continue;
		}
		for (size_t c = 0; c < tj->t.n_actions; c++) {
			const struct tpl_action *a = &tj->t.actions[c];

			if (a->as_number && a->hash == copy->hash &&
			    (a->mask_start < a->start) ==
			    (copy->mask_start < copy->start))
				t2.actions[i].as_number = 1;
		}
	}
	if (t2.n_chains != tj->t.n_chains ||
	    t2.n_variants != tj->n_variants) {
		snprintf(why, why_len,
			 "the edited template has other conditionals");
		rc = 1;
		goto out_scanned;
	}
	for (size_t v = 0; v < tj->n_variants; v++) {
		struct tvariant *var = &tj->variants[v];
		json_t **docs;
		size_t at = var->n_docs;
		int bad = 0;

		if (var->skipped)
			continue;
		if (!(docs = calloc(var->n_docs + 1, sizeof(*docs))))
			goto out_scanned;
		for (size_t d = 0; d < var->n_docs && !bad; d++) {
			struct tdoc *td = &var->docs[d];

			if (!td->json)
				continue;
			if (!(docs[d] = json_deep_copy(td->json)))
				bad = -1;
			for (size_t i = 0; !bad && i < td->n_cand; i++) {
				unsigned char null_after =
					(unsigned char)td->cand[i].null_after;

				if (!td->cand[i].held &&
				    apply_ops(docs[d], &td->cand[i].op,
					      &null_after, 1)) {
					bad = 1;
					at = d;
				}
			}
			if (!bad && docs[d] && embed_as_read(tj, docs[d]))
				bad = -1;
		}
		if (!bad)
			bad = read_back(tj, &t2, v, out->len - mark, docs,
					var->n_docs, &at);
		for (size_t d = 0; d < var->n_docs; d++)
			json_decref(docs[d]);
		free(docs);
		if (bad < 0)
			goto out_scanned;
		if (bad) {
			char note[120];


			snprintf(why, why_len,
				 "the edited template does not read back as the result%s",
				 variant_note(tj, v, note, sizeof(note)));
			if (at < var->n_docs)
				*bad_doc = &var->docs[at];
			rc = 1;
			goto out_scanned;
		}
	}
	rc = 0;
out_scanned:
	tpl_free(&t2);
out_undo:
	if (rc) {
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
	}
out_free:
	free(moved);
	free(all);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The driver                                                          */

/* Forgets what a variant holds. */
static void tvariant_clear(struct tvariant *var)
{
	{
		for (size_t d = 0; d < var->n_docs; d++) {
			struct tdoc *td = &var->docs[d];

			for (size_t i = 0; i < td->n_cand; i++)
				op_free(&td->cand[i].op);
			free(td->cand);
			text_edits_clear(&td->edits);
			text_edits_clear(&td->forbidden);
			source_node_free(td->tree);
			source_doc_clear(&td->doc);
			json_decref(td->json);
		}
		free(var->docs);
		free(var->masked);
	}
	memset(var, 0, sizeof(*var));
}

/* Forgets what the variants and findings hold; the scan stays. */
static void tjob_clear(struct tjob *tj)
{
	for (size_t v = 0; v < tj->n_variants; v++)
		tvariant_clear(&tj->variants[v]);
	for (size_t i = 0; i < tj->n_findings; i++) {
		tfinding_free(&tj->findings[i]);
	}
	free(tj->findings);
	tj->findings = NULL;
	tj->n_findings = tj->cap_findings = 0;
	memset(tj->variants, 0, tj->n_variants * sizeof(*tj->variants));
}

static void tjob_free(struct tjob *tj)
{
	tjob_clear(tj);
	free(tj->variants);
	tpl_free(&tj->t);
}

/* 1 when an error is found: the file then stays as it is. */
static int has_errors(const struct tjob *tj)
{
	for (size_t i = 0; i < tj->n_findings; i++)
		if (tj->findings[i].severity == SEVERITY_ERROR)
			return 1;
	return 0;
}

/*
 * Holds every change of the document `bad` (of any variant: the same
 * text) and reports each at its place, `why` saying why. Returns how
 * many changes it held, or -1 when out of memory.
 */
static int hold_document(struct tjob *tj, const struct tdoc *bad,
			 const char *why)
{
	size_t start = bad->doc.start, end = bad->doc.end;
	int held = 0;

	for (size_t v = 0; v < tj->n_variants; v++)
		for (size_t d = 0; d < tj->variants[v].n_docs; d++) {
			struct tdoc *td = &tj->variants[v].docs[d];

			if (td->doc.start >= end || td->doc.end <= start)
				continue;
			for (size_t i = 0; i < td->n_cand; i++) {
				struct candidate *c = &td->cand[i];

				if (c->held)
					continue;
				c->held = 1;
				c->reason = HOLD_READBACK;
				c->action = -1;
				snprintf(c->why, sizeof(c->why), "%s", why);
				if (report_held(tj, td, c))
					return -1;
				held++;
			}
			text_edits_clear(&td->edits);
		}
	return held;
}

static int report_all(struct tjob *tj)
{
	if (tj->n_findings)
		qsort(tj->findings, tj->n_findings, sizeof(*tj->findings),
		      finding_cmp);
	for (size_t i = 0; i < tj->n_findings; i++) {
		const struct tfinding *f = &tj->findings[i];
		struct chart_finding cf = {
			.line = f->line, .column = f->column, .rule = f->rule,
			.severity = f->severity, .message = f->message,
			.pointer = f->pointer, .kind = f->object.kind,
			.namespace = f->object.namespace,
			.name = f->object.name,
			.generate_name = f->object.generate_name,
			.nameless = f->object.nameless,
		};

		if (f->severity == SEVERITY_ERROR)
			tj->job->errors++;
		if (tj->job->report(tj->job->arg, &cf))
			return -1;
	}
	return 0;
}

int template_run(struct chart_job *job, const char *text, size_t len,
		 struct buf *out, struct source_error *err)
{
	struct tjob tj = { .job = job, .text = text, .len = len };
	struct defines defines = { 0 };
	struct source_error first_err;
	struct tpl_error terr;
	char why[300];
	size_t skipped = 0;
	int rc = -1, settled = 0, members, written = 0, held;

	memset(err, 0, sizeof(*err));
	job->errors = 0;
	tj.limits = source_limits_of(job->cfg);
	if (tpl_scan(text, len, &tj.t, &terr)) {
		err->line = terr.line;
		err->column = terr.column;
		snprintf(err->message, sizeof(err->message), "%s",
			 terr.message);
		return -1;
	}
	/* every combination of branches is read three times, and what is
	 * read stays until the end: a bound on the memory it takes */
	if (len * tj.t.n_variants > TEMPLATE_READ_MAX) {
		snprintf(err->message, sizeof(err->message),
			 "the template is too large for its conditionals (%zu bytes, %zu combinations of branches; at most %u MiB in all)",
			 len, tj.t.n_variants, TEMPLATE_READ_MAX >> 20);
		goto out_free;
	}
	/* includes of defines with known keys are read as members, unless
	 * the template does not read that way */
	if ((job->root ? chart_read_templates(job->root, defines_add_file,
					      &defines) :
	     defines_add_file(&defines, NULL, text, len)) != 0)
		goto out_nomem;
	tj.defines = &defines;
	tj.values = chart_values_new(job->root, job->cfg);
	members = tj.members = tpl_mark_members(&tj.t, define_known, &defines);
	tj.n_variants = tj.t.n_variants;
	tj.variants = calloc(tj.n_variants, sizeof(*tj.variants));
	if (!tj.variants) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		goto out_free;
	}
	for (size_t v = 0, rounds = 0; v < tj.n_variants; v++) {
		tj.syntax = 0;
		if (read_variant(&tj, v, err)) {
			if (tj.oom || !tj.syntax)
				goto out_free;
			if (members) {
				/* again, with every include a whole line */
				tjob_clear(&tj);
				tpl_unmark_members(&tj.t);
				members = tj.members = 0;
				skipped = 0;
				v = (size_t)-1;
				continue;
			}
			/* branches that cannot be taken together (rendered,
			 * they would not be YAML): left out, unless they are
			 * all there is */
			if (!skipped++)
				first_err = *err;
			tvariant_clear(&tj.variants[v]);
			tj.variants[v].skipped = 1;
			if (skipped == tj.n_variants) {
				*err = first_err;
				goto out_free;
			}
		}
		if (v + 1 == tj.n_variants && tj.reread &&
		    rounds++ < tj.t.n_actions) {
			/* again, with the actions that must be strings so */
			tjob_clear(&tj);
			tj.reread = 0;
			skipped = 0;
			v = (size_t)-1;
		}
	}
	if (!job->lint) {
		settled = settle(&tj);
		if (settled < 0)
			goto out_nomem;
		for (size_t v = 0; v < tj.n_variants; v++)
			for (size_t d = 0; d < tj.variants[v].n_docs; d++) {
				struct tdoc *td = &tj.variants[v].docs[d];

				for (size_t i = 0; i < td->n_cand; i++) {
					struct candidate *c = &td->cand[i];

					if (settled && !c->held) {
						c->held = 1;
						c->reason = HOLD_CONDITIONAL;
					}
					if (c->held && c->reason != HOLD_TOGETHER &&
					    report_held(&tj, td, c))
						goto out_nomem;
				}
				if (settled)
					text_edits_clear(&td->edits);
			}
	}
	if (out && !has_errors(&tj)) {
		for (;;) {
			struct tdoc *bad;

			why[0] = '\0';
			rc = write_result(&tj, out, why, sizeof(why), &bad);
			if (rc <= 0 || !bad)
				break;
			/* that document's changes are held, with a warning
			 * at each; the file's other documents are migrated */
			held = hold_document(&tj, bad, why);
			if (held < 0)
				goto out_nomem;
			if (!held)
				break;
		}
		if (rc < 0)
			goto out_nomem;
		written = 1;
	}
	if (report_all(&tj))
		goto out_free;
	if (!out) {
		rc = 0;
		goto out_free;
	}
	if (!written) {
		/* the file stays as it is */
		rc = buf_append(out, text, len) ? -1 : 0;
		if (rc)
			goto out_nomem;
		goto out_free;
	}
	if (rc) {
		struct chart_finding cf = {
			.rule = "syntax", .severity = SEVERITY_ERROR,
		};
		char message[400];

		snprintf(message, sizeof(message),
			 "cannot migrate this template in place: %s", why);
		cf.message = message;
		job->errors++;
		rc = job->report(job->arg, &cf) ? -1 : 0;
		if (!rc && buf_append(out, text, len))
			goto out_nomem;
	}
	goto out_free;
out_nomem:
	rc = -1;
	snprintf(err->message, sizeof(err->message), "out of memory");
out_free:
	json_decref(tj.values);
	tjob_free(&tj);
	defines_free(&defines);
	if (json_arena_active())
		json_arena_reset();
	return rc;
}
