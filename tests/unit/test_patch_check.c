/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_patch_check.c - the webhook's patch check: it undoes the operations
 * in the engine's object (patch_revert_op(), last first) and compares what
 * that gives with the object as it came (json_scan_equal() against the
 * body). It replaced a check that copied the object before the first
 * operation, replayed the operations on the copy and compared the result
 * with the engine's object. These tests show the new one is as strong:
 * on every object both pass, and with the engine's object changed behind
 * its back (at every place in it, or in what an operation recorded) the
 * new one fails whenever the old one does; and when the new one passes,
 * the patch as recorded applies to the object as it came and gives the
 * engine's object, which is the guarantee itself.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "buf.h"
#include "json_scan.h"
#include "json_write.h"
#include "rules.h"
#include "../patch_faults.h"

static const char *const objects[] = {
	/* four rules: resource, node label, affinity annotation, hostPath */
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
	"\"annotations\":{\"scheduler.alpha.kubernetes.io/affinity\":"
	"\"{\\\"nodeAffinity\\\":{\\\"requiredDuringSchedulingIgnoredDuringExecution\\\":"
	"{\\\"nodeSelectorTerms\\\":[{\\\"matchExpressions\\\":[{\\\"key\\\":"
	"\\\"alpha.kubernetes.io/nvidia-gpu-name\\\",\\\"operator\\\":\\\"In\\\","
	"\\\"values\\\":[\\\"Tesla K80\\\"]}]}]}}}\"}},"
	"\"spec\":{\"nodeSelector\":{\"alpha.kubernetes.io/nvidia-gpu-name\":\"Tesla K80\"},"
	"\"containers\":[{\"name\":\"c\",\"image\":\"nvidia/cuda:9.0-base\","
	"\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia-gpu\":2},"
	"\"requests\":{\"alpha.kubernetes.io/nvidia-gpu\":2}},"
	"\"volumeMounts\":[{\"name\":\"nvidia\",\"mountPath\":\"/usr/local/nvidia\"},"
	"{\"name\":\"data\",\"mountPath\":\"/data\"}]},"
	"{\"name\":\"side\",\"image\":\"busybox\","
	"\"volumeMounts\":[{\"name\":\"nvidia\",\"mountPath\":\"/usr/local/nvidia\"}]}],"
	"\"volumes\":[{\"name\":\"nvidia\",\"hostPath\":{\"path\":\"/usr/local/nvidia\"}},"
	"{\"name\":\"data\",\"emptyDir\":{}}]}}",
	/* a Deployment: a request only, which becomes a limit too */
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},"
	"\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},"
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\","
	"\"resources\":{\"requests\":{\"alpha.kubernetes.io/nvidia-gpu\":1}}}]}}}}",
	/* GPU sharing: resources replaced, an annotation added */
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"s\"},"
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\","
	"\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":4}}}]}}",
};

TEST(patch_check_as_strong_as_replay)
{
	struct config *cfg = config_new_default();
	size_t faults = 0, caught_old = 0;

	CHECK(cfg != NULL);
	for (size_t o = 0; cfg && o < sizeof(objects) / sizeof(objects[0]); o++) {
		json_t *original = json_loads(objects[o], 0, NULL);
		size_t n = 0;

		CHECK(original != NULL);
		if (!original)
			continue;
		/* position 0: no change; then each value, two ways; then the
		 * recorded values of the operations */
		for (size_t pos = 0; pos < 1 + 2 * (n ? n : 1) + 8; pos++) {
			struct rules_options opts = { .keep_undo = 1 };
			struct rules_result res;
			struct rules_error err;
			json_t *object = json_deep_copy(original), *engine;
			int old_ok, new_ok, changed = 0;

			rules_result_init(&res);
			CHECK(rules_apply(cfg, &opts, object, &res, &err) == 0);
			CHECK(res.n_ops > 0);
			if (!n)
				n = faults_count(object);
			if (pos >= 1 && pos < 1 + 2 * n) {
				size_t k = (pos - 1) / 2;

				changed = faults_change_at(object, &k, (unsigned)pos);
			} else if (pos >= 1 + 2 * n) {
				/* a recorded value changed after it was applied */
				size_t which = pos - (1 + 2 * n), seen = 0;

				for (size_t i = 0; !changed && i < res.n_ops; i++) {
					size_t k = 0;

					if (res.ops[i].value && seen++ == which)
						changed = faults_change_at(res.ops[i].value,
								    &k, 0);
				}
			}
			if (pos >= 1 && !changed) {
				json_decref(object);
				rules_result_clear(&res);
				continue;
			}
			engine = json_deep_copy(object);
			old_ok = faults_replay_gives(original, &res, engine);
			new_ok = faults_revert_gives(object, &res, original);
			if (pos == 0) {
				/* the engine is right: both pass */
				CHECK(old_ok && new_ok);
			} else {
				faults++;
				caught_old += !old_ok;
				if (!old_ok && new_ok)
					fprintf(stderr, "  object %zu, change %zu: caught by the replay, not by the undo\n",
						o, pos);
				CHECK(old_ok || !new_ok);
			}
			/* passing means the patch as recorded (after the undo)
			 * gives the engine's object */
			if (new_ok)
				CHECK(faults_replay_gives(original, &res, engine));
			json_decref(engine);
			json_decref(object);
			rules_result_clear(&res);
		}
		json_decref(original);
	}
	/* the changes were real: the old check caught most of them */
	CHECK(faults > 50 && caught_old > faults / 2);
	config_free(cfg);
}

/* Random operations undone last first give back the document. */
TEST(patch_revert_undoes_operations)
{
	static const char *const paths[] = {
		"/a", "/a/x", "/a/y", "/b", "/b/0", "/b/1", "/b/-", "/c/d/e",
		"/c/d", "/c", "/b/2",
	};
	unsigned seed = 12345;
	int undone = 0;

	for (int round = 0; round < 2000; round++) {
		json_t *doc = json_loads("{\"a\":{\"x\":1,\"y\":[true]},"
					 "\"b\":[1,\"two\",{\"t\":3}],"
					 "\"c\":{\"d\":{\"e\":null}}}", 0, NULL);
		json_t *before = json_deep_copy(doc);
		struct patch_op ops[6];
		size_t n = 0;
		int failed = 0;

		memset(ops, 0, sizeof(ops));
		for (int i = 0; i < 6; i++) {
			struct patch_op *op = &ops[n];

			seed = seed * 1103515245u + 12345u;
			op->kind = (enum patch_kind)(seed >> 16 & 3);
			op->path = (char *)paths[(seed >> 4) % 11];
			op->from = op->kind == PATCH_MOVE ?
				   (char *)paths[(seed >> 20) % 11] : NULL;
			if (op->kind == PATCH_ADD || op->kind == PATCH_REPLACE)
				op->value = json_pack("{s:i}", "v", i);
			if (patch_apply_op_undo(doc, op) == 0) {
				n++;
				continue;
			}
			/* a failed operation may leave half of it done (a move
			 * whose target is missing): the document is lost */
			json_decref(op->value);
			json_decref(op->undo);
			memset(op, 0, sizeof(*op));
			failed = 1;
			break;
		}
		if (!failed) {
			for (size_t i = n; i-- > 0;)
				CHECK(patch_revert_op(doc, &ops[i]) == 0);
			CHECK(json_equal(doc, before));
			undone += n > 2;
		}
		for (size_t i = 0; i < n; i++) {
			json_decref(ops[i].value);
			json_decref(ops[i].undo);
		}
		json_decref(before);
		json_decref(doc);
	}
	CHECK(undone > 100);
}

/*
 * What json_scan_equal() says of `text` at `path` against `value`, and
 * json_tape_equal() says the same from the tape of a full read of it
 * (when json_scan_read() reads it): the patch check uses the one or the
 * other.
 */
static int scan_equal_both(int *failures, const char *text,
			   const char *const *path, const json_t *value)
{
	struct json_tape *tape = NULL;
	int depth, rc = json_scan_equal(text, strlen(text), path, value);
	json_t *read = json_scan_read_tape(text, strlen(text), NULL, &depth,
					   NULL, &tape);

	CHECK((read != NULL) == (tape != NULL));
	if (tape)
		CHECK(json_tape_equal(tape, path, value) == rc);
	json_tape_free(tape);
	json_decref(read);
	return rc;
}

/* json_scan_equal() and json_tape_equal() judge as json_equal() on what
 * jansson reads. */
TEST(json_scan_equal_like_json_equal)
{
	static const char *const texts[] = {
		"{}",
		"{\"a\":1,\"b\":[1,2,{\"c\":\"d\"}],\"e\":{\"f\":null,\"g\":true}}",
		" {\"s\":\"caf\\u00e9 \\\" \\\\ \\n\",\"t\":false,\"n\":-12} ",
		"{\"request\":{\"uid\":\"u\",\"object\":{\"k\":[{},[]]}},\"x\":1}",
		/* escaped keys and strings: the tape's own copies */
		"{\"k\\u0065y\":\"v\\talue\",\"o\":{\"\\\"q\\\"\":[\"\\u00e9\",\"x\"]},"
		"\"key\\/2\":\"a\\/b\",\"e\":\"\"}",
		/* keys that differ only in length or at the end */
		"{\"ab\":1,\"abc\":2,\"abd\":[true,false,null,0,-0,123456789012345]}",
	};
	static const char *const object_path[] = { "request", "object", NULL };
	static const char *const missing_path[] = { "request", "nothing", NULL };

	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		json_t *doc = json_loads(texts[t], 0, NULL);
		size_t n = doc ? faults_count(doc) : 0;

		CHECK(doc != NULL);
		CHECK(scan_equal_both(failures, texts[t], NULL, doc) == 1);
		for (size_t k0 = 0; k0 < 2 * n; k0++) {
			json_t *changed = json_deep_copy(doc);
			size_t k = k0 / 2;

			if (faults_change_at(changed, &k, (unsigned)k0) &&
			    !json_equal(changed, doc))
				CHECK(scan_equal_both(failures, texts[t], NULL,
						      changed) == 0);
			json_decref(changed);
		}
		json_decref(doc);
	}
	{
		const char *text = texts[3];
		json_t *doc = json_loads(text, 0, NULL);
		json_t *object = json_object_get(json_object_get(doc, "request"),
						 "object");

		CHECK(scan_equal_both(failures, text, object_path, object) == 1);
		CHECK(scan_equal_both(failures, text, object_path, doc) == 0);
		CHECK(scan_equal_both(failures, text, missing_path, object) == 0);
		/* a member moved to the end by an operation is still there */
		json_incref(object);
		json_object_del(json_object_get(doc, "request"), "object");
		json_object_set_new(json_object_get(doc, "request"), "object",
				    object);
		CHECK(scan_equal_both(failures, text, NULL, doc) == 1);
		json_array_append_new(json_object_get(object, "k"), json_null());
		CHECK(scan_equal_both(failures, text, object_path, object) == 0);
		json_decref(doc);
	}
	/* more values than the tape first has room for */
	{
		struct buf big;
		json_t *doc;

		buf_init(&big, 0);
		CHECK(buf_puts(&big, "{\"a\":[") == 0);
		for (int i = 0; i < 3000; i++)
			CHECK(buf_printf(&big, "%s{\"k%d\":\"\\u00e9%d\"}",
					 i ? "," : "", i, i) == 0);
		CHECK(buf_puts(&big, "]}") == 0);
		doc = json_loads(big.data, 0, NULL);
		CHECK(doc != NULL);
		CHECK(scan_equal_both(failures, big.data, NULL, doc) == 1);
		json_object_set_new(json_array_get(json_object_get(doc, "a"),
						   2999), "k2999",
				    json_string("\xc3\xa9" "2998"));
		CHECK(scan_equal_both(failures, big.data, NULL, doc) == 0);
		json_decref(doc);
		buf_free(&big);
	}
	/* what only jansson reads: left to it */
	{
		json_t *doc = json_loads("{\"r\":1.5}", 0, NULL);

		CHECK(scan_equal_both(failures, "{\"r\":1.5}", NULL, doc) == -1);
		json_decref(doc);
	}
}

/* The direct writer writes what jansson's JSON_COMPACT writes. */
TEST(json_write_like_jansson)
{
	static const char *const texts[] = {
		"{\"a\":[1,-2,0,true,false,null,\"\"],\"b\":{}}",
		"{\"s\":\"\\u0001\\u001f\\b\\f\\n\\r\\t\\\"\\\\/ caf\\u00e9 \\ud83d\\ude00\"}",
		"[\"0123456789abcdef0123456789abcdef\\n0123456789abcdef\"]",
		"{\"r\":1.5,\"e\":-2.5e-300,\"big\":-9223372036854775807}",
	};
	struct buf b;
	char long_text[10000];

	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		json_t *v = json_loads(texts[t], 0, NULL);
		char *want = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

		buf_init(&b, 0);
		CHECK(v && want && json_write_value(&b, v) == 0);
		if (want)
			CHECK_STR(b.data, want);
		buf_free(&b);
		free(want);
		json_decref(v);
	}
	/* pieces of every length, escapes at every place */
	for (size_t i = 0; i < sizeof(long_text) - 1; i++)
		long_text[i] = (char)(i % 97 == 0 ? '\n' : i % 89 == 0 ? '"' :
				      'a' + (char)(i % 26));
	long_text[sizeof(long_text) - 1] = '\0';
	for (size_t len = 0; len < sizeof(long_text); len += len < 64 ? 1 : 997) {
		json_t *v = json_stringn(long_text, len);
		char *want = json_dumps(v, JSON_ENCODE_ANY);

		buf_init(&b, 0);
		CHECK(json_write_string(&b, long_text, len) == 0);
		CHECK(want && b.len == strlen(want) && !memcmp(b.data, want, b.len));
		buf_free(&b);
		free(want);
		json_decref(v);
	}
	/* short strings, read 16 and 8 bytes at a time: each byte that
	 * needs an escape (and some that do not) at every place */
	for (size_t len = 1; len <= 40; len++) {
		static const char special[] = "\"\\\n\x01\x1f\x7f ~";

		for (size_t at = 0; at < len; at++) {
			for (size_t k = 0; k < sizeof(special) - 1; k++) {
				char text[48];
				json_t *v;
				char *want;

				memset(text, 'x', len);
				text[at] = special[k];
				v = json_stringn(text, len);
				want = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
				buf_init(&b, 0);
				CHECK(json_write_string(&b, text, len) == 0);
				CHECK(want && b.len == strlen(want) &&
				      !memcmp(b.data, want, b.len));
				buf_free(&b);
				free(want);
				json_decref(v);
			}
		}
	}
}
