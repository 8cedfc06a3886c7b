/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tls.h - the serving certificate: loading and validating the pair,
 * swapping it while serving, and the GnuTLS certificate callback through
 * which libmicrohttpd hands it to each handshake.
 *
 * The pair in use is a reference-counted set of credentials. A handshake
 * pins the credentials it got to its connection until the connection
 * closes, so a swap never pulls a certificate from under a handshake under
 * way; the replaced credentials are freed when their last connection goes.
 */
#ifndef GPUMEND_WEBHOOK_TLS_H
#define GPUMEND_WEBHOOK_TLS_H

#include <stddef.h>
#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>

/*
 * GnuTLS priorities: TLS 1.3 and 1.2 only, AEAD ciphers with forward
 * secrecy, the server's order.
 */
#define TLS_PRIORITIES \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:" \
	"-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:" \
	"-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:%SERVER_PRECEDENCE"

/* Longest certificate or key file read, in bytes. */
#define TLS_FILE_MAX ((size_t)1 << 20)

struct tls_store;
struct tls_conn;

/* What is known of the pair in use, for logs and metrics. */
struct tls_info {
	long long not_after;        /* unix seconds */
	long long not_before;
	char sha256[65];            /* of the leaf certificate, hex */
	unsigned chain_length;
};

/*
 * Returns a new store for the pair at `cert_path` and `key_path` (copied),
 * holding no credentials yet; NULL when out of memory.
 */
struct tls_store *tls_store_new(const char *cert_path, const char *key_path);
/* Frees the store and its reference to the pair in use; accepts NULL.
 * Connections still pinning credentials keep them alive. */
void tls_store_free(struct tls_store *store);

/*
 * Reads both files (following symbolic links, as the kubelet and
 * cert-manager swap them) and, when their contents differ from the pair in
 * use and from the last pair refused, parses them and checks that the key
 * belongs to the certificate and, when a pair is in use already, that the
 * certificate is valid now (not expired, not valid only later). A good
 * pair replaces the pair in use for every handshake from now on.
 * Returns 1 when a new pair is in use, 0 when nothing changed (also for a
 * pair refused before, unless it was refused as not valid yet and that
 * time has come), -1 when the files cannot be read or the pair is
 * refused, with `err` saying why; the pair in use is then kept.
 * Call it from one thread at a time.
 */
int tls_store_reload(struct tls_store *store, char *err, size_t errlen);

/*
 * 1 when the last pair refused was refused only for not being valid yet,
 * and now is: tls_store_reload() would take it. Same thread as the reload.
 */
int tls_store_waiting(const struct tls_store *store);

/* Fills `info` about the pair in use; -1 when there is none yet. */
int tls_store_info(struct tls_store *store, struct tls_info *info);

/*
 * Per-connection state: returns a new one for a connection served from
 * `store` (NULL when out of memory). Its handshake will pin the pair in
 * use at that moment; tls_conn_free() drops the pin. Accepts NULL.
 */
struct tls_conn *tls_conn_new(struct tls_store *store);
void tls_conn_free(struct tls_conn *conn);
/* A pointer of the caller's kept with the connection (NULL at first). */
void tls_conn_set_owner(struct tls_conn *conn, void *owner);
void *tls_conn_owner(const struct tls_conn *conn);

/*
 * The gnutls_certificate_retrieve_function2 given to libmicrohttpd
 * (MHD_OPTION_HTTPS_CERT_CALLBACK). It finds the connection through the
 * session's pointer (libmicrohttpd sets it to the MHD_Connection) and the
 * tls_conn in that connection's socket context, and answers with the pair
 * the connection pinned. Fails the handshake (-1) when there is none.
 */
int tls_certificate_callback(gnutls_session_t session,
			     const gnutls_datum_t *req_ca_dn, int nreqs,
			     const gnutls_pk_algorithm_t *pk_algos,
			     int pk_algos_length, gnutls_pcert_st **pcert,
			     unsigned int *pcert_length,
			     gnutls_privkey_t *privkey);

#endif
