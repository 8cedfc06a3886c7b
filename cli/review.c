/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * review.c - `gpumend review`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "buf.h"
#include "config_file.h"
#include "files.h"
#include "msg.h"
#include "nul.h"
#include "review.h"

#include <jansson.h>

static const char usage[] =
	"usage: gpumend review [-c FILE] [--entry legacy|advisory] [FILE|-]\n"
	"\n"
	"Reads an AdmissionReview (admission.k8s.io/v1 or v1beta1) and prints the\n"
	"response gpumend-webhook would send for it.\n"
	"\n"
	"  -c, --config FILE   load the rules configuration from FILE\n"
	"  --entry ENTRY       answer with only what the registration's entry\n"
	"                      (gpumend webhook-config) is responsible for\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 allowed, 1 denied, 2 unreadable input or not a review.\n";

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
static int review_request(const struct config *cfg, const struct buf *body)
{
	const char *text = body->data ? body->data : "";
	size_t len = body->len;
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

int cmd_review(int argc, char **argv)
{
	const char *config_path = NULL, *input = NULL, *entry = NULL;
	struct admission_outcome out;
	struct config *cfg = NULL;
	char errbuf[1024];
	struct buf body;
	FILE *stream;
	int status = 2, i;

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
	if (entry && rules_entry_find(entry) < 0) {
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

	buf_init(&body, ADMISSION_MAX_BODY_DEFAULT);
	if (!input || !strcmp(input, "-")) {
		input = INPUT_STDIN_NAME;
		stream = stdin;
	} else if (!(stream = fopen(input, "rb"))) {
		msg_error("cannot open '%s': %s", input, strerror(errno));
		goto out_free_config;
	}
	if (read_all(stream, &body) != 0) {
		if (errno == EFBIG)
			msg_error("cannot read '%s': larger than %zu bytes",
				  input, (size_t)ADMISSION_MAX_BODY_DEFAULT);
		else
			msg_error("cannot read '%s': %s", input,
				  strerror(errno));
		if (stream != stdin)
			fclose(stream);
		goto out_free_body;
	}
	if (stream != stdin)
		fclose(stream);

	if (entry) {
		struct rules_error err = { "", "", 0 };
		struct config *only = rules_entry_config_new(cfg,
				(enum rules_entry)rules_entry_find(entry),
				review_request(cfg, &body), &err);

		if (!only) {
			msg_error("cannot make the config of entry '%s': %s%s%s",
				  entry, err.pointer, *err.pointer ? ": " : "",
				  err.message);
			goto out_free_body;
		}
		config_free(cfg);
		cfg = only;
	}
	admission_outcome_init(&out);
	if (admission_review(cfg, body.data ? body.data : "", body.len,
			     &out) != 0) {
		msg_error("cannot review '%s': out of memory", input);
	} else if (out.http_status != 200) {
		msg_error("cannot review '%s': %s", input, out.error);
	} else {
		fwrite(out.body, 1, out.body_len, stdout);
		status = out.allowed ? 0 : 1;
		if (fflush(stdout) != 0) {
			msg_error("cannot write the response: %s",
				  strerror(errno));
			status = 2;
		}
	}
	admission_outcome_clear(&out);
out_free_body:
	buf_free(&body);
out_free_config:
	config_free(cfg);
	return status;
}
