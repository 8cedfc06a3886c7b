/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * template_mask.h - Helm templates made readable as YAML, without their
 * actions.
 *
 * A Helm template is YAML with Go template actions ({{ ... }}) in it: not
 * YAML until it is rendered. tpl_scan() finds every action (strings, raw
 * strings and comments inside them understood, actions spanning lines
 * included), the control structure they form (if, with, range, define,
 * block, else, end) and how each sits in the YAML around it. tpl_mask()
 * then writes a copy of the text in which every action is replaced by a
 * placeholder of the same length, so that every byte keeps its offset and
 * every line its number:
 *
 *  - a line holding only actions (and blanks, and a YAML comment) becomes
 *    a comment line ("#" in column 0, then blanks), or a blank line inside
 *    a block scalar; so do the continuation lines of an action that spans
 *    lines;
 *  - an action that is a whole scalar (`key: {{ .Values.x }}`, with its
 *    quotes in `key: "{{ .Values.x }}"`) becomes a plain scalar whose value
 *    depends on the valuation (see below);
 *  - an action that is part of a scalar or of a key becomes letters and
 *    digits ("x" and a hash of the action's text, then "_"), the same for
 *    the same action text wherever it is;
 *  - actions that print nothing (comments, assignments, control actions)
 *    inside a line become blanks;
 *  - a line `{{- include "NAME" . | nindent N }}` indented by N, where
 *    NAME's keys are known (tpl_mark_members()), becomes a mapping member
 *    `xHASH: xHASH` at that indentation: the rules see a mapping they can
 *    copy (a selector from labels) and add to (a label beside it).
 *
 * A valuation chooses what whole-scalar actions read as: 1 and 2 give
 * the strings s1NNNNN and s2NNNNN (NNNNN from a hash of the action text,
 * shorter when the action is), or for an action marked as_number the
 * integers 1NNNNNN and 2NNNNNN; 3 gives the string "x y". Comparing what
 * the rules do under valuations 1 and 2 tells which of their operations
 * depend on what an action prints.
 *
 * A variant chooses one branch of every conditional (if, with, range with
 * an else): the lines of the other branches, and of define bodies, become
 * comment lines. Variant 0 takes every first branch; every other branch
 * (including the empty else of an `if` without one) is taken by at least
 * one variant. Conditionals written alike (`{{- if .Values.gpu }}` twice,
 * within the same range or with) take the same branch together. tpl_context() and tpl_visible() tell in which branch a
 * place is and whether a variant shows it.
 */
#ifndef GPUMEND_TEMPLATE_MASK_H
#define GPUMEND_TEMPLATE_MASK_H

#include <stddef.h>

/* What an action does. */
enum tpl_kind {
	TPL_OUTPUT,     /* prints something: {{ .Values.x }}, include, toYaml */
	TPL_SILENT,     /* prints nothing: comments, assignments, break */
	TPL_IF,
	TPL_WITH,
	TPL_RANGE,
	TPL_ELSE,       /* else, else if, else with */
	TPL_END,
	TPL_DEFINE,
	TPL_BLOCK
};

/* Where an action stands in the YAML. */
enum tpl_place {
	TPL_PLACE_LINE,     /* alone on its line(s) */
	TPL_PLACE_VALUE,    /* a whole scalar */
	TPL_PLACE_KEY,      /* a whole mapping key */
	TPL_PLACE_SCALAR,   /* part of a scalar, a key or a comment */
	TPL_PLACE_MEMBER    /* alone on its line, an include of a define whose
			     * keys are known, with `nindent` to the line's
			     * own indentation (see tpl_mark_members()) */
};

struct tpl_action {
	size_t start, end;         /* "{{" .. "}}" */
	size_t mask_start, mask_end; /* bytes its placeholder takes: the
				      * quotes of a quoted whole scalar, the
				      * rest of the line of a multi-line one */
	int line, column;          /* 1-based, of "{{" */
	enum tpl_kind kind;
	enum tpl_place place;
	unsigned hash;             /* of the action's text */
	int chain;                 /* control actions: their conditional */
	int as_number;             /* a whole scalar read as an integer under
				    * valuations 1 and 2 (see tpl_placeholder) */
};

/*
 * A branch: the text between a control action and the next else or end of
 * the same conditional. `parent` is the branch holding the conditional, -1
 * at the top.
 */
struct tpl_branch {
	size_t start, end;         /* from the end of the opening action to
				    * the start of the closing one */
	int chain;
	int index;                 /* 0 for the first branch */
	int parent;
};

/* A conditional (if/with/range/define/block with its else branches). */
struct tpl_chain {
	enum tpl_kind kind;        /* of the opening action */
	int first_branch;          /* index into branches */
	int n_branches;            /* written branches */
	int choices;               /* branches a variant can take: an if or
				    * with without else has an empty one
				    * more; a range without else and a block
				    * have 1; a define 0 (never shown) */
	int parent;                /* branch holding it, -1 at the top */
	int open_action;           /* index into actions */
	int group;                 /* the first chain of the same condition
				    * in the same scope: variants take the
				    * same branch of both */
};

/* A line of the text. */
struct tpl_line {
	size_t start, end;         /* end excludes the line break */
	int action_line;           /* masked whole (actions only, or the
				    * continuation of a multi-line action) */
	int in_block_scalar;       /* inside a | or > scalar */
};

struct tpl {
	const char *text;          /* borrowed */
	size_t len;
	struct tpl_action *actions;
	size_t n_actions;
	struct tpl_branch *branches;
	size_t n_branches;
	struct tpl_chain *chains;
	size_t n_chains;
	struct tpl_line *lines;
	size_t n_lines;
	int *variants;             /* n_variants rows of n_chains choices */
	size_t n_variants;
};

struct tpl_error {
	int line, column;          /* 1-based; 0 when unknown */
	char message[200];
};

/* The most variants tpl_scan() makes; more conditionals are refused. */
#define TPL_MAX_VARIANTS 128

/*
 * Scans `text` (borrowed: it must outlive `t`). Returns 0, or -1 with
 * `err` set: an unclosed action, string or comment, an else or end
 * without its opening action, an opening action without its end, too
 * many conditionals, or out of memory. `t` is then empty.
 */
int tpl_scan(const char *text, size_t len, struct tpl *t,
	     struct tpl_error *err);
void tpl_free(struct tpl *t);

/*
 * Writes the masked text of `variant` under `valuation` (1, 2 or 3) into
 * `out`, which holds t->len bytes (not NUL-terminated).
 */
void tpl_mask(const struct tpl *t, size_t variant, int valuation, char *out);

/*
 * The innermost branch holding `offset`, or -1. With `insertion`, text
 * inserted at `offset` is meant: it belongs to a branch when it goes
 * anywhere from the branch's start to its end, both included.
 */
int tpl_context(const struct tpl *t, size_t offset, int insertion);

/* The index of the line (t->lines) holding `offset`. */
size_t tpl_line_of(const struct tpl *t, size_t offset);

/* 1 when `variant` shows branch `branch` (-1: the top, always shown). */
int tpl_visible(const struct tpl *t, size_t variant, int branch);

/*
 * The first action whose masked bytes [mask_start, mask_end) meet
 * [start, end) (with start == end: hold `start` strictly inside), or -1.
 * Whole action lines count from their line's first byte.
 */
int tpl_action_at(const struct tpl *t, size_t start, size_t end);

/*
 * The placeholder text that action `index` reads as under `valuation`,
 * without its padding, in `out` (at least 16 bytes). For a member, the
 * key (which is also its value).
 */
void tpl_placeholder(const struct tpl *t, size_t index, int valuation,
		     char *out, size_t size);

/*
 * The bytes tpl_mask() writes for action `index` (not a whole line) under
 * `valuation`, on the first line of its span: its placeholder and
 * padding. Returns their number (0 when `size` is too small).
 */
size_t tpl_placeholder_bytes(const struct tpl *t, size_t index, int valuation,
			     char *out, size_t size);

/*
 * The bytes action `index` reads as when it stands inside a scalar
 * (wherever it stands in the template): "x", a hash, "_" up to its length.
 * Returns their number (0 when `size` is too small).
 */
size_t tpl_inner_placeholder(const struct tpl *t, size_t index, char *out,
			     size_t size);

/*
 * The define an include or template action names (`include "NAME" ...`),
 * or the define a define action opens: *name and *len set, 1; else 0.
 */
int tpl_action_define(const struct tpl *t, size_t index, const char **name,
		      size_t *len);

/*
 * Makes members (TPL_PLACE_MEMBER) of the whole-line actions that include
 * a define `known` says has known keys, piped last to `nindent N` where N
 * is the line's indentation. Returns how many.
 */
int tpl_mark_members(struct tpl *t,
		     int (*known)(void *arg, const char *name, size_t len),
		     void *arg);

/* Turns the members back into whole-line actions. */
void tpl_unmark_members(struct tpl *t);

/*
 * `text` of a member action moved to a line indented by `indent`: its
 * `nindent N` made `nindent INDENT`, in `out` (NUL-terminated). Returns
 * the length, or 0 when it does not fit.
 */
size_t tpl_member_text(const struct tpl *t, size_t index, int indent,
		       char *out, size_t size);

#endif
