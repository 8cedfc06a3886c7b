/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rules_placement.c - legacy-gpu-node-label, legacy-affinity-annotation
 * and gpu-model-affinity: the rules that decide where GPU pods may run.
 *
 * Inputs are written with ' for " to keep them readable.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rules_private.h"
#include "util.h"

static struct config *config_with_mode(enum rule_id rule, enum rule_mode mode)
{
	struct config *cfg = config_new_default();

	if (cfg)
		cfg->mode[rule] = mode;
	return cfg;
}

#define NL RULE_LEGACY_GPU_NODE_LABEL
#define AA RULE_LEGACY_AFFINITY_ANNOTATION
#define GM RULE_GPU_MODEL_AFFINITY

#define SEL_LEGACY "/spec/nodeSelector/alpha.kubernetes.io~1nvidia-gpu-name"
#define SEL_PRODUCT "/spec/nodeSelector/nvidia.com~1gpu.product"

/* ------------------------------------------------------------------ */
/* legacy-gpu-node-label                                               */

TEST(nodelabel_selector_renamed_and_normalised)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'apiVersion':'v1','kind':'Pod',"
				       "'metadata':{'name':'p'},'spec':{"
				       "'nodeSelector':{'disk':'ssd',"
				       "'alpha.kubernetes.io/nvidia-gpu-name':'Tesla  K80 '},"
				       "'containers':[{'name':'c','image':'busybox'}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, NL, SEL_LEGACY);

	CHECK(out != NULL);
	CHECK_STR(test_string_at(out, SEL_PRODUCT), "Tesla-K80");
	CHECK(json_pointer_get(out, SEL_LEGACY) == NULL);
	CHECK_STR(test_string_at(out, "/spec/nodeSelector/disk"), "ssd");
	CHECK(f && f->fixed && f->severity == SEVERITY_WARNING);
	CHECK(f && strstr(f->message, "renamed node label"));
	CHECK(test_ops_of(&res, NL) == 2);
	CHECK(res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_selector_already_normalised_is_one_rename)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla-P100'},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, SEL_PRODUCT), "Tesla-P100");
	CHECK(test_ops_of(&res, NL) == 1);
	CHECK(res.n_ops > 0 && res.ops[0].kind == PATCH_MOVE);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_selector_both_keys_same_model)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80',"
				       "'nvidia.com/gpu.product':'Tesla-K80'},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, NL, SEL_LEGACY);

	CHECK(json_pointer_get(out, SEL_LEGACY) == NULL);
	CHECK_STR(test_string_at(out, SEL_PRODUCT), "Tesla-K80");
	CHECK(f && f->fixed);
	CHECK(test_ops_of(&res, NL) == 1 && res.ops[0].kind == PATCH_REMOVE);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_selector_both_keys_conflict)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80',"
				       "'nvidia.com/gpu.product':'Tesla-V100-SXM2-16GB'},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, NL, SEL_LEGACY);

	CHECK_STR(test_string_at(out, SEL_LEGACY), "Tesla K80");
	CHECK(f && !f->fixed && f->severity == SEVERITY_ERROR);
	CHECK(f && strstr(f->message, "conflicts with"));
	CHECK(test_ops_of(&res, NL) == 0);
	CHECK(res.errors == 1);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_selector_value_not_a_string)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':1080},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, NL, SEL_LEGACY);

	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK(json_is_integer(json_pointer_get(out, SEL_LEGACY)));
	CHECK(test_ops_of(&res, NL) == 0);
	json_decref(out);
	rules_result_clear(&res);
}

#define TEMPLATE "/spec/template/spec"
#define NODE_AFF TEMPLATE "/affinity/nodeAffinity"
#define REQ_TERMS NODE_AFF "/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"
#define PREF NODE_AFF "/preferredDuringSchedulingIgnoredDuringExecution"

static const char deployment_affinity[] =
	"{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d'},"
	"'spec':{'selector':{'matchLabels':{'app':'d'}},'template':{"
	"'metadata':{'labels':{'app':'d'}},'spec':{"
	"'affinity':{'nodeAffinity':{"
	"'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
	"{'matchExpressions':[{'key':'zone','operator':'In','values':['a']},"
	"{'key':'alpha.kubernetes.io/nvidia-gpu-name','operator':'In',"
	"'values':['Tesla K80','Tesla-P100','Tesla V100-SXM2-16GB']}]},"
	"{'matchExpressions':[{'key':'alpha.kubernetes.io/nvidia-gpu-name',"
	"'operator':'Exists'}]}]},"
	"'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':10,"
	"'preference':{'matchExpressions':[{'key':'alpha.kubernetes.io/nvidia-gpu-name',"
	"'operator':'NotIn','values':['GeForce GTX 1080']}]}}]},"
	"'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':["
	"{'topologyKey':'kubernetes.io/hostname','labelSelector':{'matchExpressions':"
	"[{'key':'alpha.kubernetes.io/nvidia-gpu-name','operator':'Exists'}]}}]}},"
	"'containers':[{'name':'c','image':'trainer:1'}]}}}}";

TEST(nodelabel_affinity_required_and_preferred)
{
	struct rules_result res;
	json_t *out = test_run_squoted(deployment_affinity, NULL, NULL, &res, failures);

	CHECK(out != NULL);
	CHECK_STR(test_string_at(out, REQ_TERMS "/0/matchExpressions/0/key"), "zone");
	CHECK_STR(test_string_at(out, REQ_TERMS "/0/matchExpressions/1/key"),
		  "nvidia.com/gpu.product");
	CHECK_STR(test_string_at(out, REQ_TERMS "/0/matchExpressions/1/values/0"),
		  "Tesla-K80");
	CHECK_STR(test_string_at(out, REQ_TERMS "/0/matchExpressions/1/values/1"),
		  "Tesla-P100");
	CHECK_STR(test_string_at(out, REQ_TERMS "/0/matchExpressions/1/values/2"),
		  "Tesla-V100-SXM2-16GB");
	CHECK_STR(test_string_at(out, REQ_TERMS "/1/matchExpressions/0/key"),
		  "nvidia.com/gpu.product");
	CHECK(json_pointer_get(out, REQ_TERMS "/1/matchExpressions/0/values") == NULL);
	CHECK_STR(test_string_at(out, PREF "/0/preference/matchExpressions/0/key"),
		  "nvidia.com/gpu.product");
	CHECK_STR(test_string_at(out, PREF "/0/preference/matchExpressions/0/values/0"),
		  "GeForce-GTX-1080");
	/* pod anti-affinity selects pod labels: not a node label */
	CHECK_STR(test_string_at(out, TEMPLATE "/affinity/podAntiAffinity/"
				 "requiredDuringSchedulingIgnoredDuringExecution/0/"
				 "labelSelector/matchExpressions/0/key"),
		  "alpha.kubernetes.io/nvidia-gpu-name");
	CHECK(test_count_findings(&res, NL, NULL) == 3);
	CHECK(test_finding_at(&res, NL, REQ_TERMS "/0/matchExpressions/1/key") != NULL);
	CHECK(test_finding_at(&res, NL, REQ_TERMS "/1/matchExpressions/0/key") != NULL);
	CHECK(test_finding_at(&res, NL, PREF "/0/preference/matchExpressions/0/key") != NULL);
	/* 3 keys, 2 + 1 values; Tesla-P100 kept as it was */
	CHECK(test_ops_of(&res, NL) == 6);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_warn_mode_reports_only)
{
	struct config *cfg = config_with_mode(NL, RULE_MODE_WARN);
	struct rules_result res;
	json_t *out = test_run_squoted(deployment_affinity, cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, NL,
						  REQ_TERMS "/0/matchExpressions/1/key");

	CHECK(test_ops_of(&res, NL) == 0);
	CHECK(test_count_findings(&res, NL, NULL) == 3);
	CHECK(f && !f->fixed && f->severity == SEVERITY_WARNING);
	CHECK(f && strstr(f->message, "is no longer set; use 'nvidia.com/gpu.product'"));
	CHECK(f && strlen(f->message) <= 100);
	CHECK(res.errors == 0 && !res.denied);
	CHECK_STR(test_string_at(out, REQ_TERMS "/0/matchExpressions/1/values/0"),
		  "Tesla K80");
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(nodelabel_deny_mode_denies)
{
	struct config *cfg = config_with_mode(NL, RULE_MODE_DENY);
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'},"
				       "'containers':[{'name':'c'}]}}",
				       cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, NL, SEL_LEGACY);

	CHECK(res.denied);
	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK(test_ops_of(&res, NL) == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(nodelabel_report_only_does_not_mutate)
{
	static const struct rules_options update = { .offline = 1,
						     .report_only = 1 };
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, &update, &res, failures);
	const struct finding *f = test_finding_at(&res, NL, SEL_LEGACY);

	CHECK(res.n_ops == 0);
	CHECK(f && !f->fixed && strstr(f->message, "is no longer set"));
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_bad_affinity_values)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{"
				       "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
				       "{'nodeSelectorTerms':[{'matchExpressions':[{'key':"
				       "'alpha.kubernetes.io/nvidia-gpu-name','operator':'In','values':['Tesla K80',80]}]}]}}},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);
	const char *at = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"
			 "/nodeSelectorTerms/0/matchExpressions/0/key";
	const struct finding *f = test_finding_at(&res, NL, at);

	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK_STR(test_string_at(out, at), "alpha.kubernetes.io/nvidia-gpu-name");
	CHECK(test_ops_of(&res, NL) == 0);
	CHECK(res.errors == 1);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_opt_out_on_template)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'List','items':["
				       "{'kind':'Deployment','metadata':{'name':'a'},'spec':{'template':{"
				       "'metadata':{'annotations':{'gpumend.io/skip':'true'}},'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'},"
				       "'containers':[{'name':'c'}]}}}},"
				       "{'kind':'Deployment','metadata':{'name':'b'},'spec':{'template':{"
				       "'metadata':{'annotations':{'gpumend.io/skip-rules':'gpu-visibility, legacy-gpu-node-label'}},"
				       "'spec':{'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'},"
				       "'containers':[{'name':'c'}]}}}},"
				       "{'kind':'Deployment','metadata':{'name':'c'},'spec':{'template':{"
				       "'metadata':{'annotations':{'gpumend.io/skip-rules':'gpu-sharing'}},"
				       "'spec':{'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'},"
				       "'containers':[{'name':'c'}]}}}}]}",
				       NULL, NULL, &res, failures);

	CHECK(test_count_findings(&res, NL, NULL) == 1);
	CHECK_STR(test_string_at(out, "/items/0/spec/template/spec/nodeSelector/"
				 "alpha.kubernetes.io~1nvidia-gpu-name"), "Tesla K80");
	CHECK_STR(test_string_at(out, "/items/1/spec/template/spec/nodeSelector/"
				 "alpha.kubernetes.io~1nvidia-gpu-name"), "Tesla K80");
	CHECK_STR(test_string_at(out, "/items/2/spec/template/spec/nodeSelector/"
				 "nvidia.com~1gpu.product"), "Tesla-K80");
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_cronjob_and_tfjob)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'List','items':["
				       "{'apiVersion':'batch/v1','kind':'CronJob','metadata':{'name':'nightly'},"
				       "'spec':{'schedule':'0 3 * * *','jobTemplate':{'spec':{'template':{"
				       "'spec':{'restartPolicy':'Never',"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla P4'},"
				       "'containers':[{'name':'c'}]}}}}}},"
				       "{'apiVersion':'kubeflow.org/v1','kind':'TFJob','metadata':{'name':'mnist'},"
				       "'spec':{'tfReplicaSpecs':{'Worker':{'replicas':2,'template':{'spec':{"
				       "'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla V100'},"
				       "'containers':[{'name':'tensorflow'}]}}},"
				       "'PS':{'template':{'spec':{'containers':[{'name':'tensorflow'}]}}}}}}]}",
				       NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/items/0/spec/jobTemplate/spec/template/spec/"
				 "nodeSelector/nvidia.com~1gpu.product"), "Tesla-P4");
	CHECK_STR(test_string_at(out, "/items/1/spec/tfReplicaSpecs/Worker/template/"
				 "spec/nodeSelector/nvidia.com~1gpu.product"),
		  "Tesla-V100");
	CHECK(test_finding_at(&res, NL, "/items/1/spec/tfReplicaSpecs/Worker/template/spec/"
			      "nodeSelector/alpha.kubernetes.io~1nvidia-gpu-name") != NULL);
	CHECK(test_count_findings(&res, NL, NULL) == 2);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(nodelabel_translate_helper_detached)
{
	struct config *cfg = config_new_default();
	json_t *affinity = json_loads(
		"{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":"
		"[{\"weight\":1,\"preference\":{\"matchExpressions\":[{\"key\":"
		"\"alpha.kubernetes.io/nvidia-gpu-name\",\"operator\":\"In\","
		"\"values\":[\"Tesla K80\"]}]}}]}}", 0, NULL);
	json_t *expr = json_pointer_get(affinity,
		"/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/"
		"preference/matchExpressions/0");
	json_t *fresh;
	int bad = -1;

	CHECK(affinity && cfg);
	fresh = node_requirement_translate_new(cfg, 0, expr, &bad);
	CHECK(fresh && bad == 0);
	CHECK_STR(json_string_value(json_object_get(fresh, "key")),
		  "nvidia.com/gpu.product");
	CHECK_STR(json_string_value(json_array_get(json_object_get(fresh, "values"), 0)),
		  "Tesla-K80");
	/* the input is untouched */
	CHECK_STR(json_string_value(json_object_get(expr, "key")),
		  "alpha.kubernetes.io/nvidia-gpu-name");
	json_decref(fresh);
	json_object_set_new(expr, "values", json_string("Tesla K80"));
	fresh = node_requirement_translate_new(cfg, 0, expr, &bad);
	CHECK(fresh == NULL && bad == 1);
	json_decref(affinity);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* legacy-affinity-annotation                                          */

#define AFF_ANNOTATION "/metadata/annotations/scheduler.alpha.kubernetes.io~1affinity"

static const char pod_annotation_affinity[] =
	"{'kind':'Pod','apiVersion':'v1','metadata':{'name':'gpu-pod',"
	"'annotations':{'scheduler.alpha.kubernetes.io/affinity':"
	"'{\\'nodeAffinity\\':{\\'requiredDuringSchedulingIgnoredDuringExecution\\':"
	"{\\'nodeSelectorTerms\\':[{\\'matchExpressions\\':[{\\'key\\':"
	"\\'alpha.kubernetes.io/nvidia-gpu-name\\',\\'operator\\':\\'In\\',"
	"\\'values\\':[\\'Tesla K80\\',\\'Tesla P100\\']}]}]}}}'}},"
	"'spec':{'containers':[{'name':'gpu-container-1','image':'k8s.gcr.io/pause:2.0',"
	"'resources':{'limits':{'alpha.kubernetes.io/nvidia-gpu':2}}}]}}";

TEST(affannot_moves_into_spec_affinity)
{
	struct rules_result res;
	json_t *out = test_run_squoted(pod_annotation_affinity, NULL, NULL, &res, failures);
	const char *terms = "/spec/affinity/nodeAffinity/"
			    "requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms";
	char p[256];
	const struct finding *f = test_finding_at(&res, AA, AFF_ANNOTATION);

	CHECK(out != NULL);
	snprintf(p, sizeof(p), "%s/0/matchExpressions/0/key", terms);
	CHECK_STR(test_string_at(out, p), "nvidia.com/gpu.product");
	snprintf(p, sizeof(p), "%s/0/matchExpressions/0/values/1", terms);
	CHECK_STR(test_string_at(out, p), "Tesla-P100");
	/* the only annotation: the whole map goes */
	CHECK(json_pointer_get(out, "/metadata/annotations") == NULL);
	CHECK_STR(test_string_at(out, "/metadata/name"), "gpu-pod");
	CHECK(f && f->fixed && f->severity == SEVERITY_WARNING);
	CHECK(f && strstr(f->message, "moved annotation"));
	CHECK(test_ops_of(&res, AA) == 2);
	/* the resource rule still did its part */
	CHECK(json_pointer_get(out, "/spec/containers/0/resources/limits/nvidia.com~1gpu") != NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(affannot_keeps_other_annotations_and_affinity)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'team':'vision',"
				       "'scheduler.alpha.kubernetes.io/affinity':'{\\'nodeAffinity\\':"
				       "{\\'preferredDuringSchedulingIgnoredDuringExecution\\':[{\\'weight\\':1,"
				       "\\'preference\\':{\\'matchExpressions\\':[{\\'key\\':\\'zone\\',"
				       "\\'operator\\':\\'In\\',\\'values\\':[\\'a\\']}]}}]},"
				       "\\'podAntiAffinity\\':{\\'x\\':1}}'}},"
				       "'spec':{'affinity':{'podAntiAffinity':{'x':1}},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/metadata/annotations/team"), "vision");
	CHECK(json_pointer_get(out, AFF_ANNOTATION) == NULL);
	CHECK_STR(test_string_at(out, "/spec/affinity/nodeAffinity/"
				 "preferredDuringSchedulingIgnoredDuringExecution/0/"
				 "preference/matchExpressions/0/key"), "zone");
	CHECK(json_integer_value(json_pointer_get(out, "/spec/affinity/podAntiAffinity/x")) == 1);
	/* add nodeAffinity, remove the annotation */
	CHECK(test_ops_of(&res, AA) == 2);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(affannot_equal_affinity_only_drops_annotation)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'scheduler.alpha.kubernetes.io/affinity':'{\\'podAffinity\\':{\\'y\\':[1]}}'}},"
				       "'spec':{'affinity':{'podAffinity':{'y':[1]}},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);

	CHECK(test_ops_of(&res, AA) == 1);
	CHECK(json_pointer_get(out, "/metadata/annotations") == NULL);
	CHECK(test_finding_at(&res, AA, AFF_ANNOTATION) != NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(affannot_conflict_is_an_error)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'scheduler.alpha.kubernetes.io/affinity':'{\\'podAffinity\\':{\\'y\\':[1]}}'}},"
				       "'spec':{'affinity':{'podAffinity':{'y':[2]}},"
				       "'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, AA, AFF_ANNOTATION);

	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK(f && strstr(f->message, "conflicts with spec.affinity.podAffinity"));
	CHECK(test_ops_of(&res, AA) == 0);
	CHECK(json_pointer_get(out, AFF_ANNOTATION) != NULL);
	CHECK(res.errors == 1);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(affannot_bad_values)
{
	static const char *const inputs[] = {
		"'{\\'nodeAffinity\\': '",                   /* not JSON */
		"'[1, 2]'",                                  /* not an object */
		"'{\\'nodeAffinity\\':{},\\'tolerations\\':[]}'", /* unknown member */
		"42",                                        /* not a string */
		"'{\\'nodeAffinity\\':{\\'requiredDuringSchedulingIgnoredDuringExecution\\':"
		"{\\'nodeSelectorTerms\\':[{\\'matchExpressions\\':[{\\'key\\':"
		"\\'alpha.kubernetes.io/nvidia-gpu-name\\',\\'operator\\':\\'In\\',"
		"\\'values\\':[7]}]}]}}}'",                  /* bad label value */
	};

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct rules_result res;
		char text[1024];
		json_t *out;
		const struct finding *f;

		snprintf(text, sizeof(text),
			 "{'kind':'Pod','metadata':{'name':'p','annotations':{"
			 "'scheduler.alpha.kubernetes.io/affinity':%s}},"
			 "'spec':{'containers':[{'name':'c'}]}}", inputs[i]);
		out = test_run_squoted(text, NULL, NULL, &res, failures);
		f = test_finding_at(&res, AA, AFF_ANNOTATION);
		CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
		CHECK(f && strlen(f->message) <= 100);
		CHECK(test_ops_of(&res, AA) == 0);
		CHECK(json_pointer_get(out, "/spec/affinity") == NULL);
		if (!f || strlen(f->message) > 100)
			fprintf(stderr, "  input %zu: %s\n", i,
				f ? f->message : "no finding");
		json_decref(out);
		rules_result_clear(&res);
	}
}

TEST(affannot_affinity_not_a_mapping)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'scheduler.alpha.kubernetes.io/affinity':'{\\'podAffinity\\':{}}'}},"
				       "'spec':{'affinity':'zone-a','containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, AA, AFF_ANNOTATION);

	CHECK(f && f->severity == SEVERITY_ERROR);
	CHECK_STR(test_string_at(out, "/spec/affinity"), "zone-a");
	CHECK(test_ops_of(&res, AA) == 0);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(affannot_warn_mode)
{
	struct config *cfg = config_with_mode(AA, RULE_MODE_WARN);
	struct rules_result res;
	json_t *out = test_run_squoted(pod_annotation_affinity, cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, AA, AFF_ANNOTATION);

	CHECK(f && !f->fixed && f->severity == SEVERITY_WARNING);
	CHECK(f && strstr(f->message, "ignored by the scheduler; use spec.affinity"));
	CHECK(test_ops_of(&res, AA) == 0);
	CHECK(json_pointer_get(out, AFF_ANNOTATION) != NULL);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(affannot_deployment_template_only)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d',"
				       "'annotations':{'scheduler.alpha.kubernetes.io/affinity':'not json'}},"
				       "'spec':{'template':{'metadata':{'labels':{'app':'d'},'annotations':{"
				       "'scheduler.alpha.kubernetes.io/affinity':'{\\'podAntiAffinity\\':{\\'z\\':true}}'}},"
				       "'spec':{'affinity':null,'containers':[{'name':'c'}]}}}}",
				       NULL, NULL, &res, failures);

	/* the Deployment's own annotations do not reach its pods */
	CHECK(test_count_findings(&res, AA, NULL) == 1);
	CHECK(test_finding_at(&res, AA, "/spec/template" AFF_ANNOTATION) != NULL);
	CHECK_STR(test_string_at(out, AFF_ANNOTATION), "not json");
	CHECK(json_is_true(json_pointer_get(out, "/spec/template/spec/affinity/"
					    "podAntiAffinity/z")));
	CHECK(json_pointer_get(out, "/spec/template/metadata/annotations") == NULL);
	CHECK_STR(test_string_at(out, "/spec/template/metadata/labels/app"), "d");
	json_decref(out);
	rules_result_clear(&res);
}

TEST(affannot_opt_out)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'gpumend.io/skip-rules':'legacy-affinity-annotation',"
				       "'scheduler.alpha.kubernetes.io/affinity':'{}'}},"
				       "'spec':{'containers':[{'name':'c'}]}}",
				       NULL, NULL, &res, failures);

	CHECK(test_count_findings(&res, AA, NULL) == 0);
	CHECK(json_pointer_get(out, AFF_ANNOTATION) != NULL);
	json_decref(out);
	rules_result_clear(&res);
}

/* ------------------------------------------------------------------ */
/* gpu-model-affinity                                                  */

#define MODELS_ANNOTATION "/metadata/annotations/gpumend.io~1gpu-models"
#define POD_TERMS "/spec/affinity/nodeAffinity/" \
	"requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"

TEST(gpumodels_annotation_adds_required_affinity)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'gpumend.io/gpu-models':' Tesla K80, A100-SXM4-80GB,,Tesla  K80 '}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':"
				       "{'nvidia.com/gpu':1}}}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GM, MODELS_ANNOTATION);
	json_t *values = json_pointer_get(out, POD_TERMS "/0/matchExpressions/0/values");

	CHECK_STR(test_string_at(out, POD_TERMS "/0/matchExpressions/0/key"),
		  "nvidia.com/gpu.product");
	CHECK_STR(test_string_at(out, POD_TERMS "/0/matchExpressions/0/operator"), "In");
	CHECK(json_array_size(values) == 2);
	CHECK_STR(json_string_value(json_array_get(values, 0)), "Tesla-K80");
	CHECK_STR(json_string_value(json_array_get(values, 1)), "A100-SXM4-80GB");
	/* gpumend's own annotation stays */
	CHECK(json_pointer_get(out, MODELS_ANNOTATION) != NULL);
	CHECK(f && f->fixed && f->severity == SEVERITY_WARNING);
	CHECK(f && strstr(f->message, "Tesla-K80, A100-SXM4-80GB"));
	CHECK(test_ops_of(&res, GM) == 1);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpumodels_no_gpu_no_change)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'gpumend.io/gpu-models':'Tesla K80'}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':"
				       "{'cpu':'1','nvidia.com/gpu':0}}}]}}",
				       NULL, NULL, &res, failures);

	CHECK(test_count_findings(&res, GM, NULL) == 0);
	CHECK(res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpumodels_already_constrained)
{
	struct rules_result res;
	/* legacy-gpu-node-label runs first and makes it a gpu.product one */
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'gpumend.io/gpu-models':'A100'}},"
				       "'spec':{'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'},"
				       "'containers':[{'name':'c','resources':{'limits':"
				       "{'alpha.kubernetes.io/nvidia-gpu':1}}}]}}",
				       NULL, NULL, &res, failures);

	CHECK(test_count_findings(&res, GM, NULL) == 0);
	CHECK(test_ops_of(&res, GM) == 0);
	CHECK(json_pointer_get(out, "/spec/affinity") == NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpumodels_every_term_gets_the_requirement)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'gpumend.io/gpu-models':'Tesla T4'}},"
				       "'spec':{'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
				       "{'nodeSelectorTerms':[{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]},"
				       "{'matchFields':[{'key':'metadata.name','operator':'In','values':['n1']}]}]}}},"
				       "'containers':[{'name':'c','resources':{'limits':{'nvidia.com/gpu':'1'}}}]}}",
				       NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, POD_TERMS "/0/matchExpressions/1/values/0"), "Tesla-T4");
	CHECK_STR(test_string_at(out, POD_TERMS "/1/matchExpressions/0/values/0"), "Tesla-T4");
	CHECK_STR(test_string_at(out, POD_TERMS "/1/matchFields/0/key"), "metadata.name");
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpumodels_empty_list_is_an_error)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{"
				       "'gpumend.io/gpu-models':' , ,#'}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':"
				       "{'nvidia.com/gpu':1}}}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GM, MODELS_ANNOTATION);

	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK(test_ops_of(&res, GM) == 0);
	CHECK(res.errors == 1);
	json_decref(out);
	rules_result_clear(&res);
}

/* Adds a policy: pods of `ns` must run on `model`. */
static int add_policy(struct config *cfg, const char *ns, const char *model)
{
	struct namespace_models *grown = realloc(cfg->namespace_models,
		(cfg->n_namespace_models + 1) * sizeof(*grown));
	struct namespace_models *nm;

	if (!grown)
		return -1;
	cfg->namespace_models = grown;
	nm = &grown[cfg->n_namespace_models++];
	memset(nm, 0, sizeof(*nm));
	nm->namespace_name = strdup(ns);
	nm->models.items = calloc(1, sizeof(char *));
	if (!nm->namespace_name || !nm->models.items)
		return -1;
	nm->models.items[0] = strdup(model);
	nm->models.n = nm->models.items[0] ? 1 : 0;
	return 0;
}

TEST(gpumodels_namespace_policy)
{
	struct config *cfg = config_new_default();
	static const struct rules_options in_ml = { .offline = 1,
						    .namespace_name = "ml" };
	struct rules_result res;
	json_t *out;

	CHECK(cfg && add_policy(cfg, "ml", "Tesla V100-SXM2-32GB") == 0);
	CHECK(add_policy(cfg, "web", "Tesla T4") == 0);
	/* a Job in namespace "ml": the policy applies to its template */
	out = test_run_squoted("{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'train',"
			       "'namespace':'ml'},'spec':{'template':{'spec':{'restartPolicy':'Never',"
			       "'containers':[{'name':'c','resources':{'limits':{'nvidia.com/gpu':4}}}]}}}}",
			       cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/template" POD_TERMS "/0/matchExpressions/0/values/0"),
		  "Tesla-V100-SXM2-32GB");
	CHECK(test_finding_at(&res, GM, "/spec/template/spec") != NULL);
	json_decref(out);
	rules_result_clear(&res);

	/* no namespace in the object: the request's */
	out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':"
			       "[{'name':'c','resources':{'limits':{'nvidia.com/gpu':1}}}]}}",
			       cfg, &in_ml, &res, failures);
	CHECK(test_finding_at(&res, GM, "/spec") != NULL);
	CHECK(json_pointer_get(out, POD_TERMS) != NULL);
	json_decref(out);
	rules_result_clear(&res);

	/* the annotation wins over the policy */
	out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','namespace':'ml','annotations':"
			       "{'gpumend.io/gpu-models':'A100'}},'spec':{'containers':"
			       "[{'name':'c','resources':{'limits':{'nvidia.com/gpu':1}}}]}}",
			       cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, POD_TERMS "/0/matchExpressions/0/values/0"), "A100");
	CHECK(test_finding_at(&res, GM, MODELS_ANNOTATION) != NULL);
	json_decref(out);
	rules_result_clear(&res);

	/* other namespaces: nothing */
	out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','namespace':'batch'},'spec':{"
			       "'containers':[{'name':'c','resources':{'limits':{'nvidia.com/gpu':1}}}]}}",
			       cfg, NULL, &res, failures);
	CHECK(test_count_findings(&res, GM, NULL) == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpumodels_object_annotation_reaches_template)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'apiVersion':'apps/v1','kind':'StatefulSet','metadata':{'name':'s',"
				       "'annotations':{'gpumend.io/gpu-models':'Tesla P40'}},"
				       "'spec':{'template':{'metadata':{'labels':{'app':'s'}},'spec':{"
				       "'initContainers':[{'name':'fetch'}],"
				       "'containers':[{'name':'c','resources':{'requests':{'nvidia.com/gpu':1},"
				       "'limits':{'nvidia.com/gpu':1}}}]}}}}",
				       NULL, NULL, &res, failures);

	CHECK(test_finding_at(&res, GM, MODELS_ANNOTATION) != NULL);
	CHECK_STR(test_string_at(out, "/spec/template" POD_TERMS "/0/matchExpressions/0/values/0"),
		  "Tesla-P40");
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpumodels_warn_and_deny)
{
	const char *input = "{'kind':'Pod','metadata':{'name':'p','annotations':{"
			    "'gpumend.io/gpu-models':'Tesla K80'}},"
			    "'spec':{'containers':[{'name':'c','resources':{'limits':"
			    "{'nvidia.com/gpu':1}}}]}}";
	struct config *cfg = config_with_mode(GM, RULE_MODE_WARN);
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted(input, cfg, NULL, &res, failures);

	f = test_finding_at(&res, GM, MODELS_ANNOTATION);
	CHECK(f && !f->fixed && f->severity == SEVERITY_WARNING);
	CHECK(f && strstr(f->message, "not required by node affinity"));
	CHECK(res.n_ops == 0 && !res.denied);
	json_decref(out);
	rules_result_clear(&res);

	cfg->mode[GM] = RULE_MODE_DENY;
	out = test_run_squoted(input, cfg, NULL, &res, failures);
	f = test_finding_at(&res, GM, MODELS_ANNOTATION);
	CHECK(f && f->severity == SEVERITY_ERROR && res.denied);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpumodels_opt_out_and_list)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'List','items':["
				       "{'kind':'Pod','metadata':{'name':'a','annotations':{"
				       "'gpumend.io/gpu-models':'Tesla K80','gpumend.io/skip-rules':'gpu-model-affinity'}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':{'nvidia.com/gpu':1}}}]}},"
				       "{'kind':'Pod','metadata':{'name':'b','annotations':{"
				       "'gpumend.io/gpu-models':'Tesla K80'}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':{'nvidia.com/gpu':1}}}]}}]}",
				       NULL, NULL, &res, failures);

	CHECK(test_count_findings(&res, GM, NULL) == 1);
	CHECK(test_finding_at(&res, GM, "/items/1" MODELS_ANNOTATION) != NULL);
	CHECK(json_pointer_get(out, "/items/0/spec/affinity") == NULL);
	CHECK(json_pointer_get(out, "/items/1/spec/affinity") != NULL);
	json_decref(out);
	rules_result_clear(&res);
}
