/* webhook/log.c - not written yet. */
typedef int log_placeholder;
