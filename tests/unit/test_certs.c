/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_certs.c - certs_check_pair() and certs_not_after() on pairs made by
 * `gpumend certs` itself in a temporary directory.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "certs.h"
#include "harness.h"

struct certs_fixture {
	char dir[64];
	char *ca_crt, *ca_key, *tls_crt, *tls_key;
	size_t ca_crt_len, ca_key_len, tls_crt_len, tls_key_len;
};

static char *certs_read(const char *dir, const char *name, size_t *len)
{
	char path[128];
	FILE *f;
	char *data;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	data = calloc(1, 65536);
	if (data)
		*len = fread(data, 1, 65535, f);
	fclose(f);
	return data;
}

/* Runs `gpumend certs` quietly (it prints the caBundle and a note). */
static int certs_run(char **argv, int argc)
{
	int saved_out = dup(1), saved_err = dup(2);
	int null = open("/dev/null", O_WRONLY);
	int rc;

	fflush(stdout);
	fflush(stderr);
	dup2(null, 1);
	dup2(null, 2);
	rc = cmd_certs(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	close(null);
	return rc;
}

static int certs_fixture_make(struct certs_fixture *fx, const char *key_type)
{
	char *argv[] = { "certs", "--service", "hook", "--namespace", "ns",
			 "--out", fx->dir, "--days", "30", "--key-type",
			 (char *)key_type, NULL };

	memset(fx, 0, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/gpumend-unit-certs.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	argv[6] = fx->dir;
	if (certs_run(argv, 11) != 0)
		return -1;
	fx->ca_crt = certs_read(fx->dir, "ca.crt", &fx->ca_crt_len);
	fx->ca_key = certs_read(fx->dir, "ca.key", &fx->ca_key_len);
	fx->tls_crt = certs_read(fx->dir, "tls.crt", &fx->tls_crt_len);
	fx->tls_key = certs_read(fx->dir, "tls.key", &fx->tls_key_len);
	return fx->ca_crt && fx->ca_key && fx->tls_crt && fx->tls_key ? 0 : -1;
}

static void certs_fixture_free(struct certs_fixture *fx)
{
	static const char *const names[] = {
		"ca.crt", "ca.key", "tls.crt", "tls.key"
	};
	char path[128];

	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", fx->dir, names[i]);
		unlink(path);
	}
	rmdir(fx->dir);
	free(fx->ca_crt);
	free(fx->ca_key);
	free(fx->tls_crt);
	free(fx->tls_key);
}

TEST(certs_check_pair_accepts_generated_pairs)
{
	static const char *const types[] = { "ecdsa", "rsa" };

	for (size_t i = 0; i < 2; i++) {
		struct certs_fixture fx;
		char err[256] = "unset";

		CHECK(certs_fixture_make(&fx, types[i]) == 0);
		CHECK(certs_check_pair(fx.tls_crt, fx.tls_crt_len, fx.tls_key,
				       fx.tls_key_len, err, sizeof(err)) == 0);
		CHECK_STR(err, "");
		CHECK(certs_check_pair(fx.ca_crt, fx.ca_crt_len, fx.ca_key,
				       fx.ca_key_len, err, sizeof(err)) == 0);
		certs_fixture_free(&fx);
	}
}

TEST(certs_check_pair_refuses_broken_pairs)
{
	struct certs_fixture fx;
	char err[256];
	static const char garbage[] = "-----BEGIN CERTIFICATE-----\nnope\n";

	CHECK(certs_fixture_make(&fx, "ecdsa") == 0);
	/* the CA's key does not belong to the serving certificate */
	CHECK(certs_check_pair(fx.tls_crt, fx.tls_crt_len, fx.ca_key,
			       fx.ca_key_len, err, sizeof(err)) == -1);
	CHECK(strstr(err, "does not belong") != NULL);
	CHECK(certs_check_pair(garbage, sizeof(garbage) - 1, fx.tls_key,
			       fx.tls_key_len, err, sizeof(err)) == -1);
	CHECK(strstr(err, "certificate does not parse") != NULL);
	CHECK(certs_check_pair(fx.tls_crt, fx.tls_crt_len, "", 0, err,
			       sizeof(err)) == -1);
	CHECK(strstr(err, "private key does not parse") != NULL);
	/* a key where the certificate should be */
	CHECK(certs_check_pair(fx.tls_key, fx.tls_key_len, fx.tls_key,
			       fx.tls_key_len, err, sizeof(err)) == -1);
	/* a truncated certificate */
	CHECK(certs_check_pair(fx.tls_crt, fx.tls_crt_len / 2, fx.tls_key,
			       fx.tls_key_len, err, sizeof(err)) == -1);
	/* no room for the message is fine */
	CHECK(certs_check_pair(garbage, sizeof(garbage) - 1, fx.tls_key,
			       fx.tls_key_len, NULL, 0) == -1);
	certs_fixture_free(&fx);
}

TEST(certs_check_pair_refuses_encrypted_key)
{
	struct certs_fixture fx;
	char err[256];
	BIO *in, *out;
	EVP_PKEY *key = NULL;
	char *pem = NULL;
	long len = 0;

	CHECK(certs_fixture_make(&fx, "ecdsa") == 0);
	in = BIO_new_mem_buf(fx.tls_key, (int)fx.tls_key_len);
	out = BIO_new(BIO_s_mem());
	if (in)
		key = PEM_read_bio_PrivateKey(in, NULL, NULL, NULL);
	CHECK(key != NULL);
	CHECK(out && key && PEM_write_bio_PrivateKey(out, key, EVP_aes_128_cbc(),
			(unsigned char *)"secret", 6, NULL, NULL) == 1);
	if (out)
		len = BIO_get_mem_data(out, &pem);
	CHECK(len > 0 && strstr(pem, "ENCRYPTED") != NULL);
	/* refused, never prompted for (stdin may be a terminal) */
	CHECK(certs_check_pair(fx.tls_crt, fx.tls_crt_len, pem, (size_t)len,
			       err, sizeof(err)) == -1);
	CHECK(strstr(err, "private key does not parse") != NULL);
	EVP_PKEY_free(key);
	BIO_free(in);
	BIO_free(out);
	certs_fixture_free(&fx);
}

TEST(certs_not_after_reads_expiry)
{
	struct certs_fixture fx;
	long long not_after = 0;
	long long now = (long long)time(NULL);

	CHECK(certs_fixture_make(&fx, "ecdsa") == 0);
	CHECK(certs_not_after(fx.tls_crt, fx.tls_crt_len, &not_after) == 0);
	/* --days 30, from the moment it was made */
	CHECK(not_after > now + 30 * 86400LL - 120);
	CHECK(not_after <= now + 30 * 86400LL + 1);
	CHECK(certs_not_after("junk", 4, &not_after) == -1);
	certs_fixture_free(&fx);
}

TEST(certs_usage_errors_exit_2)
{
	char *no_out[] = { "certs", "--service", "hook", "--namespace", "ns",
			   NULL };
	char *bad_label[] = { "certs", "--service", "Hook_1", "--namespace",
			      "ns", "--out", "/nonexistent", NULL };
	char *check_no_file[] = { "certs", "check", "--service", "a",
				  "--namespace", "b", NULL };

	CHECK(certs_run(no_out, 5) == 2);
	CHECK(certs_run(bad_label, 7) == 2);
	CHECK(certs_run(check_no_file, 6) == 2);
}
