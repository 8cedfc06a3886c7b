/* webhook/tls.c - not written yet. */
typedef int tls_placeholder;
