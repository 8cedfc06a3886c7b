/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tls.c - the serving certificate and its hot swap.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#include "tls.h"

/* Longest certificate chain accepted. */
#define TLS_CHAIN_MAX 16
#define DIGEST_SIZE 32

/* One certificate chain and its key, shared by every handshake using it. */
struct tls_creds {
	atomic_int refs;
	gnutls_pcert_st *pcerts;
	unsigned n_pcerts;
	gnutls_privkey_t key;
	struct tls_info info;
};

struct tls_store {
	char *cert_path;
	char *key_path;
	pthread_mutex_t lock;           /* guards `current` */
	struct tls_creds *current;      /* NULL until a pair is loaded */
	unsigned char current_digest[DIGEST_SIZE];
	unsigned char refused_digest[DIGEST_SIZE];
	int refused;                    /* refused_digest is set */
	/* the refused pair becomes valid then (unix seconds); 0: never */
	long long refused_until;
};

struct tls_conn {
	struct tls_store *store;
	struct tls_creds *creds;        /* pinned by the first handshake */
	void *owner;                    /* the server's, for the connection */
};

static void creds_free(struct tls_creds *creds)
{
	if (!creds)
		return;
	for (unsigned i = 0; i < creds->n_pcerts; i++)
		gnutls_pcert_deinit(&creds->pcerts[i]);
	free(creds->pcerts);
	if (creds->key)
		gnutls_privkey_deinit(creds->key);
	free(creds);
}

static void creds_put(struct tls_creds *creds)
{
	if (creds && atomic_fetch_sub(&creds->refs, 1) == 1)
		creds_free(creds);
}

static struct tls_creds *store_acquire(struct tls_store *store)
{
	struct tls_creds *creds;

	pthread_mutex_lock(&store->lock);
	creds = store->current;
	if (creds)
		atomic_fetch_add(&creds->refs, 1);
	pthread_mutex_unlock(&store->lock);
	return creds;
}

struct tls_store *tls_store_new(const char *cert_path, const char *key_path)
{
	struct tls_store *store = calloc(1, sizeof(*store));

	if (!store)
		return NULL;
	store->cert_path = strdup(cert_path);
	store->key_path = strdup(key_path);
	if (!store->cert_path || !store->key_path ||
	    pthread_mutex_init(&store->lock, NULL) != 0) {
		free(store->cert_path);
		free(store->key_path);
		free(store);
		return NULL;
	}
	return store;
}

void tls_store_free(struct tls_store *store)
{
	if (!store)
		return;
	creds_put(store->current);
	pthread_mutex_destroy(&store->lock);
	free(store->cert_path);
	free(store->key_path);
	free(store);
}

/*
 * Reads a whole file of at most TLS_FILE_MAX bytes into a new buffer. A
 * `secret` file (the private key) that every user of the machine may read
 * is refused: whoever else runs there could take the webhook's identity.
 */
static int read_file(const char *path, gnutls_datum_t *out, int secret,
		     char *err, size_t errlen)
{
	struct stat st;
	size_t len = 0, alloc = 4096;
	unsigned char *data = NULL;
	int fd;

	out->data = NULL;
	out->size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot read '%s': not a regular file",
			 path);
		goto out_close;
	}
	if (secret && (st.st_mode & S_IROTH)) {
		snprintf(err, errlen,
			 "key file '%s' is readable by every user (mode %04o); "
			 "make it 0600, or 0440 with a group (defaultMode in a "
			 "Secret volume)", path, (unsigned)(st.st_mode & 07777));
		goto out_close;
	}
	for (;;) {
		ssize_t n;

		if (!data || len == alloc) {
			unsigned char *grown;

			if (data)
				alloc *= 2;
			if (alloc > TLS_FILE_MAX + 1)
				alloc = TLS_FILE_MAX + 1;
			if (len == alloc) {
				snprintf(err, errlen,
					 "cannot read '%s': larger than %zu bytes",
					 path, TLS_FILE_MAX);
				goto out_free;
			}
			if (!(grown = realloc(data, alloc))) {
				snprintf(err, errlen, "out of memory");
				goto out_free;
			}
			data = grown;
		}
		n = read(fd, data + len, alloc - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "cannot read '%s': %s", path,
				 strerror(errno));
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > TLS_FILE_MAX) {
		snprintf(err, errlen, "cannot read '%s': larger than %zu bytes",
			 path, TLS_FILE_MAX);
		goto out_free;
	}
	close(fd);
	out->data = data;
	out->size = (unsigned)len;
	return 0;
out_free:
	/* the key is secret: do not leave it in freed memory */
	if (data)
		gnutls_memset(data, 0, alloc);
	free(data);
out_close:
	if (fd >= 0)
		close(fd);
	return -1;
}

static void datum_wipe(gnutls_datum_t *d)
{
	if (d->data) {
		gnutls_memset(d->data, 0, d->size);
		free(d->data);
	}
	d->data = NULL;
	d->size = 0;
}

/* 0 when the key's public half is the leaf certificate's public key. */
static int key_matches(gnutls_privkey_t key, gnutls_pubkey_t cert_pub)
{
	gnutls_datum_t a = { NULL, 0 }, b = { NULL, 0 };
	gnutls_pubkey_t key_pub;
	int rc = -1;

	if (gnutls_pubkey_init(&key_pub) < 0)
		return -1;
	if (gnutls_pubkey_import_privkey(key_pub, key, 0, 0) >= 0 &&
	    gnutls_pubkey_export2(key_pub, GNUTLS_X509_FMT_DER, &a) >= 0 &&
	    gnutls_pubkey_export2(cert_pub, GNUTLS_X509_FMT_DER, &b) >= 0 &&
	    a.size == b.size && memcmp(a.data, b.data, a.size) == 0)
		rc = 0;
	gnutls_free(a.data);
	gnutls_free(b.data);
	gnutls_pubkey_deinit(key_pub);
	return rc;
}

/* Parses and checks a pair; returns new credentials (one reference). */
static struct tls_creds *creds_load(const gnutls_datum_t *cert_pem,
				    const gnutls_datum_t *key_pem,
				    char *err, size_t errlen)
{
	struct tls_creds *creds = calloc(1, sizeof(*creds));
	gnutls_x509_crt_t *crts = NULL;
	unsigned n = 0;
	size_t digest_size = DIGEST_SIZE;
	unsigned char digest[DIGEST_SIZE];
	int ret;

	if (!creds) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	atomic_init(&creds->refs, 1);
	ret = gnutls_x509_crt_list_import2(&crts, &n, cert_pem,
					   GNUTLS_X509_FMT_PEM, 0);
	if (ret < 0 || n == 0) {
		snprintf(err, errlen, "no PEM certificate could be read%s%s",
			 ret < 0 ? ": " : "", ret < 0 ? gnutls_strerror(ret) : "");
		goto out_fail;
	}
	if (n > TLS_CHAIN_MAX) {
		snprintf(err, errlen, "the certificate chain is longer than %d",
			 TLS_CHAIN_MAX);
		goto out_fail;
	}
	creds->info.chain_length = n;
	creds->info.not_after = (long long)gnutls_x509_crt_get_expiration_time(crts[0]);
	creds->info.not_before = (long long)gnutls_x509_crt_get_activation_time(crts[0]);
	if (gnutls_x509_crt_get_fingerprint(crts[0], GNUTLS_DIG_SHA256, digest,
					    &digest_size) >= 0) {
		for (unsigned i = 0; i < digest_size && i < DIGEST_SIZE; i++)
			snprintf(creds->info.sha256 + 2 * i, 3, "%02x",
				 digest[i]);
	}
	if (!(creds->pcerts = calloc(n, sizeof(*creds->pcerts)))) {
		snprintf(err, errlen, "out of memory");
		goto out_fail;
	}
	{
		unsigned imported = n;

		ret = gnutls_pcert_import_x509_list(creds->pcerts, crts,
						    &imported, 0);
		if (ret < 0) {
			snprintf(err, errlen, "cannot use the certificate: %s",
				 gnutls_strerror(ret));
			goto out_fail;
		}
		creds->n_pcerts = imported;
	}
	if ((ret = gnutls_privkey_init(&creds->key)) < 0) {
		creds->key = NULL;
		snprintf(err, errlen, "cannot use the key: %s",
			 gnutls_strerror(ret));
		goto out_fail;
	}
	ret = gnutls_privkey_import_x509_raw(creds->key, key_pem,
					     GNUTLS_X509_FMT_PEM, NULL, 0);
	if (ret < 0) {
		snprintf(err, errlen, "no PEM private key could be read: %s",
			 gnutls_strerror(ret));
		goto out_fail;
	}
	if (key_matches(creds->key, creds->pcerts[0].pubkey) != 0) {
		snprintf(err, errlen,
			 "the private key does not belong to the certificate");
		goto out_fail;
	}
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	return creds;
out_fail:
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	creds_free(creds);
	return NULL;
}

/* SHA-256 over both files (each preceded by its length): the pair's identity. */
static int pair_digest(const gnutls_datum_t *cert, const gnutls_datum_t *key,
		       unsigned char digest[DIGEST_SIZE])
{
	unsigned char sizes[8];
	gnutls_hash_hd_t hash;

	for (int i = 0; i < 4; i++) {
		sizes[i] = (unsigned char)(cert->size >> (8 * i));
		sizes[4 + i] = (unsigned char)(key->size >> (8 * i));
	}
	if (gnutls_hash_init(&hash, GNUTLS_DIG_SHA256) < 0)
		return -1;
	if (gnutls_hash(hash, sizes, 4) < 0 ||
	    gnutls_hash(hash, cert->data, cert->size) < 0 ||
	    gnutls_hash(hash, sizes + 4, 4) < 0 ||
	    gnutls_hash(hash, key->data, key->size) < 0) {
		gnutls_hash_deinit(hash, NULL);
		return -1;
	}
	gnutls_hash_deinit(hash, digest);
	return 0;
}

/*
 * 0 when the leaf certificate is valid at `now`; else -1 with `why` set.
 * The time it becomes valid goes to *valid_from (0 when it never will).
 */
static int creds_valid_at(const struct tls_creds *creds, long long now,
			  long long *valid_from, char *why, size_t whylen)
{
	char when[32];
	time_t t;
	struct tm tm;

	*valid_from = 0;
	if (now > creds->info.not_after) {
		t = (time_t)creds->info.not_after;
		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		snprintf(why, whylen, "the certificate expired at %s", when);
		return -1;
	}
	if (now < creds->info.not_before) {
		t = (time_t)creds->info.not_before;
		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		snprintf(why, whylen, "the certificate is not valid before %s",
			 when);
		*valid_from = creds->info.not_before;
		return -1;
	}
	return 0;
}

int tls_store_reload(struct tls_store *store, char *err, size_t errlen)
{
	gnutls_datum_t cert = { NULL, 0 }, key = { NULL, 0 };
	unsigned char digest[DIGEST_SIZE];
	struct tls_creds *creds, *old;
	char why[512];
	long long now;
	int rc = -1;

	if (read_file(store->cert_path, &cert, 0, err, errlen) != 0)
		return -1;
	if (read_file(store->key_path, &key, 1, err, errlen) != 0)
		goto out_wipe;
	if (pair_digest(&cert, &key, digest) != 0) {
		snprintf(err, errlen, "cannot hash the certificate files");
		goto out_wipe;
	}
	now = (long long)time(NULL);
	if ((store->current &&
	     !memcmp(digest, store->current_digest, DIGEST_SIZE)) ||
	    (store->refused &&
	     !memcmp(digest, store->refused_digest, DIGEST_SIZE) &&
	     !(store->refused_until && now >= store->refused_until))) {
		rc = 0;
		goto out_wipe;
	}
	store->refused_until = 0;
	creds = creds_load(&cert, &key, why, sizeof(why));
	/*
	 * While a pair is in use, one that is expired or not valid yet is
	 * refused: every API server call would fail its TLS handshake. At
	 * start-up there is no other pair to keep, so it is taken (and the
	 * caller warns).
	 */
	if (creds && store->current &&
	    creds_valid_at(creds, now, &store->refused_until, why,
			   sizeof(why)) != 0) {
		creds_put(creds);
		creds = NULL;
	}
	if (!creds) {
		snprintf(err, errlen, "refused the pair '%s', '%s': %s",
			 store->cert_path, store->key_path, why);
		memcpy(store->refused_digest, digest, DIGEST_SIZE);
		store->refused = 1;
		goto out_wipe;
	}
	pthread_mutex_lock(&store->lock);
	old = store->current;
	store->current = creds;
	pthread_mutex_unlock(&store->lock);
	memcpy(store->current_digest, digest, DIGEST_SIZE);
	store->refused = 0;
	store->refused_until = 0;
	creds_put(old);
	rc = 1;
out_wipe:
	datum_wipe(&cert);
	datum_wipe(&key);
	return rc;
}

int tls_store_waiting(const struct tls_store *store)
{
	return store->refused && store->refused_until &&
	       (long long)time(NULL) >= store->refused_until;
}

int tls_store_info(struct tls_store *store, struct tls_info *info)
{
	int rc = -1;

	pthread_mutex_lock(&store->lock);
	if (store->current) {
		*info = store->current->info;
		rc = 0;
	}
	pthread_mutex_unlock(&store->lock);
	return rc;
}

struct tls_conn *tls_conn_new(struct tls_store *store)
{
	struct tls_conn *conn = calloc(1, sizeof(*conn));

	if (conn)
		conn->store = store;
	return conn;
}

void tls_conn_free(struct tls_conn *conn)
{
	if (!conn)
		return;
	creds_put(conn->creds);
	free(conn);
}

void tls_conn_set_owner(struct tls_conn *conn, void *owner)
{
	conn->owner = owner;
}

void *tls_conn_owner(const struct tls_conn *conn)
{
	return conn ? conn->owner : NULL;
}

int tls_certificate_callback(gnutls_session_t session,
			     const gnutls_datum_t *req_ca_dn, int nreqs,
			     const gnutls_pk_algorithm_t *pk_algos,
			     int pk_algos_length, gnutls_pcert_st **pcert,
			     unsigned int *pcert_length,
			     gnutls_privkey_t *privkey)
{
	struct MHD_Connection *connection = gnutls_session_get_ptr(session);
	const union MHD_ConnectionInfo *info;
	struct tls_conn *conn;

	(void)req_ca_dn;
	(void)nreqs;
	(void)pk_algos;
	(void)pk_algos_length;
	if (!connection)
		return -1;
	info = MHD_get_connection_info(connection,
				       MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn = info ? info->socket_context : NULL;
	if (!conn)
		return -1;
	/* GnuTLS may ask again in the same handshake: keep one answer */
	if (!conn->creds)
		conn->creds = store_acquire(conn->store);
	if (!conn->creds)
		return -1;
	*pcert = conn->creds->pcerts;
	*pcert_length = conn->creds->n_pcerts;
	*privkey = conn->creds->key;
	return 0;
}
