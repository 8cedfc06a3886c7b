/* legacy_gpu_node_label.c - placeholder until the rule lands. */
#include "rules_private.h"

int rule_run_legacy_gpu_node_label(struct rule_ctx *ctx)
{
	(void)ctx;
	return 0;
}
