/* certs/certs.c - not written yet. */
typedef int certs_placeholder;
