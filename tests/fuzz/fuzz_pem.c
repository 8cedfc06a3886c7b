/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_pem.c - libFuzzer target: bytes in as a certificate and a key
 * file, through everything that reads them: certs_check_pair() and
 * certs_not_after() (OpenSSL), the webhook's tls_store_reload() (GnuTLS)
 * and `gpumend certs check` (with the key file as the --ca bundle).
 *
 * The input is the certificate file, the line "--key--", and the key
 * file; without that line both files hold the whole input (a combined
 * PEM bundle). The files are memfds named by /proc/self/fd/N.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "certs.h"
#include "fuzz.h"
#include "tls.h"

#define KEY_SEPARATOR "\n--key--\n"

struct memfile {
	int fd;
	char path[64];
};

static void memfile_open(struct memfile *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	if (f->fd < 0)
		fuzz_fail("memfd_create failed");
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

static void memfile_set(struct memfile *f, const char *data, size_t len)
{
	if (ftruncate(f->fd, 0) != 0 ||
	    (len && pwrite(f->fd, data, len, 0) != (ssize_t)len))
		fuzz_fail("cannot write the memfd");
}

/* err is a NUL-terminated sentence when rc says it failed. */
static void err_check(const char *what, int failed, const char *err,
		      size_t size)
{
	if (!memchr(err, '\0', size))
		fuzz_fail("%s: the error is not NUL-terminated", what);
	if (failed && !*err)
		fuzz_fail("%s failed without saying why", what);
}

static void tls_check(const struct memfile *cert, const struct memfile *key)
{
	struct tls_store *store = tls_store_new(cert->path, key->path);
	struct tls_info info;
	struct tls_conn *conn;
	char err[512];
	int rc;

	if (!store)
		fuzz_fail("out of memory");
	memset(err, 'x', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	rc = tls_store_reload(store, err, sizeof(err));
	if (rc < -1 || rc > 1)
		fuzz_fail("tls_store_reload returned %d", rc);
	if (rc == 0)
		fuzz_fail("tls_store_reload: nothing changed in a new store");
	if (rc < 0)
		err_check("tls_store_reload", 1, err, sizeof(err));
	if ((tls_store_info(store, &info) == 0) != (rc == 1))
		fuzz_fail("tls_store_info disagrees with tls_store_reload (%d)",
			  rc);
	if (rc == 1) {
		if (info.chain_length < 1 || info.chain_length > 16)
			fuzz_fail("a chain of %u certificates", info.chain_length);
		if (tls_store_reload(store, err, sizeof(err)) != 0)
			fuzz_fail("reloading the same pair changes something");
	}
	conn = tls_conn_new(store);
	tls_conn_free(conn);
	tls_store_free(store);
}

static void certs_cli_check(const struct memfile *cert,
			    const struct memfile *key)
{
	char *argv[] = {
		"certs", "check", (char *)cert->path, "--service", "gpumend",
		"--namespace", "default", "--ca", (char *)key->path, NULL
	};
	int rc = cmd_certs(9, argv);

	if (rc < 0 || rc > 2)
		fuzz_fail("certs check exited %d", rc);
	fflush(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct memfile cert_file, key_file;
	const char *text = (const char *)data;
	const char *sep = memmem(text, size, KEY_SEPARATOR,
				 strlen(KEY_SEPARATOR));
	const char *key = text;
	size_t cert_len = size, key_len = size;
	char err[256];
	long long not_after;
	int rc;

	if (!cert_file.path[0]) {
		memfile_open(&cert_file, "tls.crt");
		memfile_open(&key_file, "tls.key");
	}
	if (sep) {
		cert_len = (size_t)(sep - text);
		key = sep + strlen(KEY_SEPARATOR);
		key_len = size - cert_len - strlen(KEY_SEPARATOR);
	}

	memset(err, 'x', sizeof(err));
	rc = certs_check_pair(text, cert_len, key, key_len, err, sizeof(err));
	if (rc != 0 && rc != -1)
		fuzz_fail("certs_check_pair returned %d", rc);
	err_check("certs_check_pair", rc != 0, err, sizeof(err));
	(void)certs_not_after(text, cert_len, &not_after);

	memfile_set(&cert_file, text, cert_len);
	memfile_set(&key_file, key, key_len);
	tls_check(&cert_file, &key_file);
	certs_cli_check(&cert_file, &key_file);
	return 0;
}
