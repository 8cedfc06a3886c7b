/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * review.c - `gpumend review`: one AdmissionReview, or many, one per
 * line (--batch).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "buf.h"
#include "config_file.h"
#include "files.h"
#include "json_write.h"
#include "msg.h"
#include "nul.h"
#include "review.h"

#include <jansson.h>

static const char usage[] =
	"usage: gpumend review [-c FILE] [--entry legacy|advisory] [--batch] [FILE|-]\n"
	"\n"
	"Reads an AdmissionReview (admission.k8s.io/v1 or v1beta1) and prints the\n"
	"response gpumend-webhook would send for it.\n"
	"\n"
	"  -c, --config FILE   load the rules configuration from FILE\n"
	"  --entry ENTRY       answer with only what the registration's entry\n"
	"                      (gpumend webhook-config) is responsible for\n"
	"  --batch             read one AdmissionReview per line and print one\n"
	"                      response per line, in order, each as soon as it\n"
	"                      is made ({\"error\": ...} for a line with none)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 allowed, 1 denied, 2 unreadable input or not a review\n"
	"(--batch: the worst of its lines).\n";

/*
 * What the reviews of one run share: the config, and under --entry the
 * entry's config for each kind of request (rules_entry_config_new()'s
 * RULES_REQUEST_* flags), made when first needed.
 */
/* Room for why a review has no response: a config error names a JSON
 * Pointer and a message (struct rules_error). */
#define WHY_MAX 1200

struct review_run {
	const struct config *cfg;
	int entry;                      /* enum rules_entry, or -1: none */
	struct config *by_request[4];
};

/* Reads all of `stream` into `out` (capped); 0, or -1 with errno set
 * (EFBIG past the cap). */
static int read_all(FILE *stream, struct buf *out)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), stream)) > 0) {
		if (buf_append(out, chunk, n) != 0) {
			errno = EFBIG;
			return -1;
		}
	}
	if (ferror(stream)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * What rules_entry_config_new() needs to know of the review's request
 * (RULES_REQUEST_*): whether it is the UPDATE of a Pod or a Job
 * (request.resource, else request.kind, names one), which only the
 * advisory entry is sent, and
 * whether the registration covers its resource (one without
 * request.resource is taken to be covered).
 */
static int review_request(const struct config *cfg, const char *text,
			  size_t len)
{
	/* a key may hold \u0000 too, which jansson refuses: encoded, as the
	 * review itself reads it */
	char *encoded = nul_text_has(text, len) ?
			nul_text_encode(text, len, &len) : NULL;
	json_t *review = json_loadb(encoded ? encoded : text, len, 0, NULL);
	json_t *request = json_object_get(review, "request");
	json_t *resource = json_object_get(request, "resource");
	const char *operation = json_string_value(
		json_object_get(request, "operation"));
	const char *group, *name;
	int fixed, flags = 0;

	if (resource) {
		group = json_string_value(json_object_get(resource, "group"));
		name = json_string_value(json_object_get(resource, "resource"));
		fixed = group && name &&
			((!*group && !strcmp(name, "pods")) ||
			 (!strcmp(group, "batch") && !strcmp(name, "jobs")));
		if (!rules_pod_shape_registered(cfg, group, name))
			flags |= RULES_REQUEST_UNREGISTERED;
	} else {
		resource = json_object_get(request, "kind");
		group = json_string_value(json_object_get(resource, "group"));
		name = json_string_value(json_object_get(resource, "kind"));
		fixed = name && ((!strcmp(name, "Pod") && (!group || !*group)) ||
				 (!strcmp(name, "Job") && group &&
				  !strcmp(group, "batch")));
	}
	if (fixed && operation && !strcmp(operation, "UPDATE"))
		flags |= RULES_REQUEST_FIXED_UPDATE;
	json_decref(review);
	free(encoded);
	return flags;
}

/*
 * The config to review `text` with: the run's, or under --entry the
 * entry's for this kind of request (made once). NULL with `why` filled
 * when it cannot be made.
 */
static const struct config *review_config(struct review_run *run,
					  const char *text, size_t len,
					  char *why, size_t size)
{
	struct rules_error err = { "", "", 0 };
	int request;

	if (run->entry < 0)
		return run->cfg;
	request = review_request(run->cfg, text, len);
	if ((unsigned)request >= sizeof(run->by_request) /
				 sizeof(run->by_request[0]))
		request = 0;
	if (!run->by_request[request] &&
	    !(run->by_request[request] = rules_entry_config_new(run->cfg,
				(enum rules_entry)run->entry, request, &err)))
		snprintf(why, size, "cannot make the config of entry '%s': %s%s%s",
			 rules_entry_name((enum rules_entry)run->entry),
			 err.pointer, *err.pointer ? ": " : "", err.message);
	return run->by_request[request];
}

/*
 * Reviews the AdmissionReview text[0..len) and writes the response to
 * stdout. Returns the exit status of the review (0 allowed, 1 denied),
 * or 2 with `why` saying what went wrong (nothing written).
 */
static int review_one(struct review_run *run, const char *text, size_t len,
		      char *why, size_t size)
{
	const struct config *cfg = review_config(run, text, len, why, size);
	struct admission_outcome out;
	int status = 2;

	if (!cfg)
		return 2;
	admission_outcome_init(&out);
	if (admission_review(cfg, text, len, &out) != 0) {
		snprintf(why, size, "out of memory");
	} else if (out.http_status != 200) {
		snprintf(why, size, "%s", out.error);
	} else if (fwrite(out.body, 1, out.body_len, stdout) != out.body_len ||
		   fflush(stdout) != 0) {
		snprintf(why, size, "cannot write the response: %s",
			 strerror(errno));
	} else {
		status = out.allowed ? 0 : 1;
	}
	admission_outcome_clear(&out);
	return status;
}

/*
 * Writes the line {"error":"LINE: WHY"} for a line that has no response,
 * WHY's bytes past ASCII as '?' (it may quote the input). 0, or -1 when
 * stdout fails.
 */
static int batch_error(unsigned long line, const char *why)
{
	struct buf b;
	char *text = NULL;
	int rc = -1;

	buf_init(&b, 0);
	if (buf_printf(&b, "line %lu: %s", line, why) == 0) {
		text = buf_detach(&b, NULL);
		for (char *c = text; c && *c; c++)
			if ((unsigned char)*c >= 0x80)
				*c = '?';
	}
	if (text && buf_puts(&b, "{\"error\":") == 0 &&
	    json_write_string(&b, text, strlen(text)) == 0 &&
	    buf_puts(&b, "}\n") == 0 &&
	    fwrite(b.data, 1, b.len, stdout) == b.len && fflush(stdout) == 0)
		rc = 0;
	free(text);
	buf_free(&b);
	return rc;
}

/*
 * Reads the next line of `stream` into `line` (without its '\n'); a line
 * longer than the buffer's cap is read to its end and dropped, and
 * `*toolong` set. 1 for a line, 0 at the end, -1 on a read error.
 */
static int batch_line(FILE *stream, struct buf *line, int *toolong)
{
	int c, any = 0;

	buf_reset(line);
	*toolong = 0;
	while ((c = getc(stream)) != EOF) {
		any = 1;
		if (c == '\n')
			return 1;
		if (!*toolong && buf_putc(line, (char)c) != 0)
			*toolong = 1;
	}
	if (ferror(stream))
		return -1;
	return any;
}

/*
 * --batch: a review per line of `stream`, a response per line on
 * stdout, flushed at once, so that a program can write a review and
 * wait for its answer. A line that gets none (blank, unreadable, not a
 * review, too long) gets {"error": ...} there and its message on stderr.
 * Returns the worst status of the lines (0 for none).
 */
static int review_batch(struct review_run *run, FILE *stream,
			const char *input)
{
	unsigned long n = 0;
	struct buf line;
	int status = 0, toolong, rc;

	buf_init(&line, ADMISSION_MAX_BODY_DEFAULT);
	while ((rc = batch_line(stream, &line, &toolong)) > 0) {
		char why[WHY_MAX] = "";
		int one;

		n++;
		if (toolong)
			snprintf(why, sizeof(why), "larger than %zu bytes",
				 (size_t)ADMISSION_MAX_BODY_DEFAULT);
		else if (!line.len)
			snprintf(why, sizeof(why), "an empty line");
		one = *why ? 2 : review_one(run, line.data, line.len, why,
					    sizeof(why));
		if (one == 2) {
			msg_at(input, (int)n, 0, "error", "cannot review it: %s",
			       why);
			if (batch_error(n, why) != 0) {
				msg_error("cannot write the response: %s",
					  strerror(errno));
				break;
			}
		}
		if (one > status)
			status = one;
	}
	if (rc < 0) {
		msg_error("cannot read '%s': %s", input, strerror(errno));
		status = 2;
	}
	buf_free(&line);
	return status;
}

/* A review of the whole of `stream`. */
static int review_stream(struct review_run *run, FILE *stream,
			 const char *input)
{
	char why[WHY_MAX] = "";
	struct buf body;
	int status = 2;

	buf_init(&body, ADMISSION_MAX_BODY_DEFAULT);
	if (read_all(stream, &body) != 0) {
		if (errno == EFBIG)
			msg_error("cannot read '%s': larger than %zu bytes",
				  input, (size_t)ADMISSION_MAX_BODY_DEFAULT);
		else
			msg_error("cannot read '%s': %s", input,
				  strerror(errno));
	} else {
		status = review_one(run, body.data ? body.data : "", body.len,
				    why, sizeof(why));
		if (status == 2)
			msg_error("cannot review '%s': %s", input, why);
	}
	buf_free(&body);
	return status;
}

int cmd_review(int argc, char **argv)
{
	const char *config_path = NULL, *input = NULL, *entry = NULL;
	struct review_run run = { NULL, -1, { NULL } };
	struct config *cfg = NULL;
	char errbuf[1024];
	FILE *stream;
	int status = 2, batch = 0, i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(arg, "-c") || !strcmp(arg, "--config")) {
			if (++i == argc) {
				msg_usage("review", "option '%s' needs a value", arg);
				return 2;
			}
			config_path = argv[i];
		} else if (!strncmp(arg, "--config=", 9)) {
			config_path = arg + 9;
		} else if (!strcmp(arg, "--entry")) {
			if (++i == argc) {
				msg_usage("review", "option '%s' needs a value", arg);
				return 2;
			}
			entry = argv[i];
		} else if (!strncmp(arg, "--entry=", 8)) {
			entry = arg + 8;
		} else if (!strcmp(arg, "--batch")) {
			batch = 1;
		} else if (!strcmp(arg, "--")) {
			if (i + 1 < argc && !input)
				input = argv[++i];
			if (i + 1 < argc) {
				msg_usage("review", "unexpected argument '%s' (one file at a time)",
					  argv[i + 1]);
				return 2;
			}
		} else if (arg[0] == '-' && arg[1]) {
			msg_usage("review", "unknown option '%s'", arg);
			return 2;
		} else if (input) {
			msg_usage("review", "unexpected argument '%s' (one file at a time)",
				  arg);
			return 2;
		} else {
			input = arg;
		}
	}
	if (entry && (run.entry = rules_entry_find(entry)) < 0) {
		msg_error("--entry must be legacy or advisory, not '%s'", entry);
		return 2;
	}
	if (config_path)
		cfg = config_file_load_admission(config_path, errbuf,
						 sizeof(errbuf));
	else
		cfg = config_new_default();
	if (!cfg) {
		if (config_path)
			msg_error("%s", errbuf);
		else
			msg_error("out of memory");
		return 2;
	}
	run.cfg = cfg;

	if (!input || !strcmp(input, "-")) {
		input = INPUT_STDIN_NAME;
		stream = stdin;
	} else if (!(stream = fopen(input, "rb"))) {
		msg_error("cannot open '%s': %s", input, strerror(errno));
		goto out_free_config;
	}
	status = batch ? review_batch(&run, stream, input) :
			 review_stream(&run, stream, input);
	if (stream != stdin)
		fclose(stream);
out_free_config:
	for (size_t r = 0; r < sizeof(run.by_request) /
			       sizeof(run.by_request[0]); r++)
		config_free(run.by_request[r]);
	config_free(cfg);
	return status;
}
