/* webhook/metrics.c - not written yet. */
typedef int metrics_placeholder;
