/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * certs.c - `gpumend certs`: a CA and a serving certificate for the
 * webhook's Service, `gpumend certs check`, and the pair checks the webhook
 * runs when it loads its certificate.
 *
 * OpenSSL 3 only, through the EVP_PKEY and X509 APIs (nothing deprecated).
 * The API server verifies the serving certificate against the caBundle and
 * the Service's DNS names against the subjectAltName extension; Go's TLS
 * also insists on serverAuth when an extendedKeyUsage is present. The
 * common name plays no part, so it is informative only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "certs.h"
#include "files.h"
#include "msg.h"

#define CERTS_MAX_IPS     32
#define CERTS_MAX_FILE    (1024 * 1024)  /* certificate files are small */
#define CERTS_DEFAULT_DAYS 365           /* the serving certificate */
#define CERTS_MAX_DAYS    3650
#define CERTS_DEFAULT_CA_DAYS 3650       /* the CA: many rotations */
#define CERTS_MAX_CA_DAYS 36500
#define CERTS_BACKDATE    (5 * 60)       /* tolerate clock skew */

enum key_type { KEY_ECDSA, KEY_RSA };

struct create_options {
	const char *service;
	const char *namespace_name;
	const char *out_dir;
	long days;                       /* the serving certificate's */
	long ca_days;                    /* a new CA's */
	const char *ips[CERTS_MAX_IPS];
	size_t n_ips;
	enum key_type key_type;
	int rsa_bits;
	int force;
	int reuse_ca;
};

/* The four names the API server may use to reach a Service. */
struct service_names {
	char name[4][160];
};

/* A PEM file about to be written. */
struct out_file {
	const char *name;      /* "ca.crt", ... */
	char *pem;
	size_t len;
	mode_t mode;
	int secret;            /* wipe `pem` before freeing it */
	int created;           /* written by this run where nothing was */
};

/* ------------------------------------------------------------------ */
/* Help                                                                */

static const char create_usage[] =
"usage: gpumend certs --service NAME --namespace NS --out DIR [options]\n"
"       gpumend certs check FILE --service NAME --namespace NS [--ca FILE]\n"
"\n"
"Creates a certificate authority and a serving certificate for the\n"
"webhook's Service, signed by that CA, and prints the CA certificate in\n"
"base64 on standard output, on one line: the caBundle of the\n"
"MutatingWebhookConfiguration.\n"
"\n"
"The serving certificate names the Service the ways the API server may\n"
"call it: NAME, NAME.NS, NAME.NS.svc and NAME.NS.svc.cluster.local, plus\n"
"every --ip. The API server checks these names and ignores the CN.\n"
"\n"
"Files written in DIR (created when missing):\n"
"  ca.crt     the CA certificate (the caBundle, decoded)\n"
"  ca.key     the CA's private key: keep it safe, and keep it if you want\n"
"             a later rotation (--reuse-ca) to sign the new serving\n"
"             certificate with the same CA, so the caBundle stays the same\n"
"  tls.crt    the serving certificate\n"
"  tls.key    its private key\n"
"Keys are written with mode 0600, every file atomically. Existing files\n"
"are never replaced unless --force is given.\n"
"\n"
"Options:\n"
"  --service NAME     the webhook's Service (a DNS-1123 label)\n"
"  --namespace NS     the Service's namespace (a DNS-1123 label)\n"
"  --out DIR          where to write the files\n"
"  --days N           validity of the serving certificate in days, 1 to\n"
"                     3650 (default 365)\n"
"  --ca-days N        validity of a new CA in days, 1 to 36500 (default\n"
"                     3650): rotations with --reuse-ca keep the caBundle\n"
"                     until it runs out\n"
"  --ip IP            also valid for this IPv4 or IPv6 address; repeatable\n"
"  --key-type TYPE    ecdsa (P-256, the default) or rsa\n"
"  --rsa-bits N       RSA key size: 2048 (default), 3072 or 4096\n"
"  --reuse-ca         sign with DIR/ca.crt and DIR/ca.key instead of making\n"
"                     a new CA; only tls.crt and tls.key are written\n"
"  --force            replace files that already exist\n"
"  -h, --help         show this help\n"
"\n"
"See 'gpumend certs check --help' for checking a certificate.\n"
"Exit status: 0 success, 2 a usage, input or output error.\n";

static const char check_usage[] =
"usage: gpumend certs check FILE --service NAME --namespace NS [--ca FILE]\n"
"\n"
"Prints the subject, issuer, names and validity of the first certificate\n"
"in FILE (PEM or DER; '-' reads standard input) and checks that the API\n"
"server would accept it for the webhook's Service: valid now, usable for\n"
"server authentication, and naming NAME, NAME.NS, NAME.NS.svc and\n"
"NAME.NS.svc.cluster.local in its subjectAltName.\n"
"\n"
"Options:\n"
"  --service NAME     the webhook's Service\n"
"  --namespace NS     the Service's namespace\n"
"  --ca FILE          also verify the certificate (and any intermediates\n"
"                     after it in FILE) against the CA certificates in this\n"
"                     file: the caBundle, decoded\n"
"  -h, --help         show this help\n"
"\n"
"Exit status: 0 the certificate is fine, 1 a check failed, 2 a usage or\n"
"input error.\n";

static int usage_error(const char *help_command)
{
	msg_note("see '%s %s --help'", msg_program(), help_command);
	return 2;
}

/* ------------------------------------------------------------------ */
/* Arguments                                                           */

/*
 * Recognises argv[*i] as the option `name` taking a value, written
 * "--name VALUE" or "--name=VALUE". Returns 1 with *value set (and *i moved
 * onto a separate value), 0 when argv[*i] is another option, -1 (reported)
 * when the value is missing.
 */
static int option_value(int argc, char **argv, int *i, const char *name,
			const char **value)
{
	const char *arg = argv[*i];
	size_t n = strlen(name);

	if (strncmp(arg, name, n) != 0)
		return 0;
	if (arg[n] == '=') {
		*value = arg + n + 1;
		return 1;
	}
	if (arg[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		msg_error("option '%s' needs a value", name);
		return -1;
	}
	*i += 1;
	*value = argv[*i];
	return 1;
}

/* A DNS-1123 label: 1-63 of [a-z0-9-], starting and ending alphanumeric. */
static int dns_label_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && (c != '-' || i == 0 || i == n - 1))
			return 0;
	}
	return 1;
}

static int check_label(const char *what, const char *value)
{
	if (!value) {
		msg_error("missing '--%s'", what);
		return -1;
	}
	if (!dns_label_valid(value)) {
		msg_error("'%s' is not a valid %s name: use 1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit",
			  value, what);
		return -1;
	}
	return 0;
}

/* Parses a whole decimal number within [min, max]; -1 otherwise. */
static int parse_long(const char *text, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*text || *text == '+' || *text == '-' || *text == ' ')
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Fills `out` with the network-order bytes of an IP; returns the length
 * (4 or 16), or -1 when `text` is neither an IPv4 nor an IPv6 address. */
static int ip_parse(const char *text, unsigned char out[16])
{
	if (inet_pton(AF_INET, text, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, text, out) == 1)
		return 16;
	return -1;
}

static void service_names_init(struct service_names *sn, const char *service,
			       const char *namespace_name)
{
	/* Both are labels of at most 63 characters, so these always fit. */
	snprintf(sn->name[0], sizeof(sn->name[0]), "%s", service);
	snprintf(sn->name[1], sizeof(sn->name[1]), "%s.%s", service,
		 namespace_name);
	snprintf(sn->name[2], sizeof(sn->name[2]), "%s.%s.svc", service,
		 namespace_name);
	snprintf(sn->name[3], sizeof(sn->name[3]), "%s.%s.svc.cluster.local",
		 service, namespace_name);
}

/*
 * A validity in days from the option `flag`, 1 to `max`, into *out when
 * `text` is not NULL; 0, or -1 when it is not one (reported).
 */
static int parse_days(const char *flag, const char *text, long max, long *out)
{
	if (!text || !parse_long(text, 1, max, out))
		return 0;
	msg_error("'%s' must be a whole number from 1 to %ld, not '%s'", flag,
		  max, text);
	return -1;
}

/* Returns 0, 1 when help was printed, or 2 after a reported usage error. */
static int create_options_parse(struct create_options *o, int argc, char **argv)
{
	const char *days = NULL, *ca_days = NULL, *key_type = NULL;
	const char *rsa_bits = NULL;
	unsigned char ip[16];

	memset(o, 0, sizeof(*o));
	o->days = CERTS_DEFAULT_DAYS;
	o->ca_days = CERTS_DEFAULT_CA_DAYS;
	o->key_type = KEY_ECDSA;
	o->rsa_bits = 2048;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		int r;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(create_usage, stdout);
			return 1;
		}
		if (!strcmp(arg, "--force")) {
			o->force = 1;
			continue;
		}
		if (!strcmp(arg, "--reuse-ca")) {
			o->reuse_ca = 1;
			continue;
		}
		if ((r = option_value(argc, argv, &i, "--service", &value)) != 0) {
			o->service = value;
		} else if ((r = option_value(argc, argv, &i, "--namespace", &value)) != 0) {
			o->namespace_name = value;
		} else if ((r = option_value(argc, argv, &i, "--out", &value)) != 0) {
			o->out_dir = value;
		} else if ((r = option_value(argc, argv, &i, "--days", &value)) != 0) {
			days = value;
		} else if ((r = option_value(argc, argv, &i, "--ca-days", &value)) != 0) {
			ca_days = value;
		} else if ((r = option_value(argc, argv, &i, "--key-type", &value)) != 0) {
			key_type = value;
		} else if ((r = option_value(argc, argv, &i, "--rsa-bits", &value)) != 0) {
			rsa_bits = value;
		} else if ((r = option_value(argc, argv, &i, "--ip", &value)) != 0) {
			if (r > 0 && o->n_ips == CERTS_MAX_IPS) {
				msg_error("too many '--ip' options (at most %d)",
					  CERTS_MAX_IPS);
				return usage_error("certs");
			}
			if (r > 0)
				o->ips[o->n_ips++] = value;
		} else if (arg[0] == '-') {
			msg_usage("certs", "unknown option '%s'", arg);
			return 2;
		} else {
			msg_usage("certs", "unexpected argument '%s'", arg);
			return 2;
		}
		if (r < 0)
			return usage_error("certs");
	}

	if (check_label("service", o->service) ||
	    check_label("namespace", o->namespace_name))
		return usage_error("certs");
	if (!o->out_dir || !*o->out_dir) {
		msg_error("missing '--out'");
		return usage_error("certs");
	}
	if (ca_days && o->reuse_ca) {
		msg_error("'--ca-days' is the validity of a new CA: it cannot go with '--reuse-ca'");
		return usage_error("certs");
	}
	if (parse_days("--days", days, CERTS_MAX_DAYS, &o->days) ||
	    parse_days("--ca-days", ca_days, CERTS_MAX_CA_DAYS, &o->ca_days))
		return usage_error("certs");
	if (key_type) {
		if (!strcmp(key_type, "ecdsa")) {
			o->key_type = KEY_ECDSA;
		} else if (!strcmp(key_type, "rsa")) {
			o->key_type = KEY_RSA;
		} else {
			msg_error("unknown key type '%s' (use 'ecdsa' or 'rsa')",
				  key_type);
			return usage_error("certs");
		}
	}
	if (rsa_bits) {
		long bits;

		if (o->key_type != KEY_RSA) {
			msg_error("'--rsa-bits' needs '--key-type rsa'");
			return usage_error("certs");
		}
		if (parse_long(rsa_bits, 2048, 4096, &bits) ||
		    (bits != 2048 && bits != 3072 && bits != 4096)) {
			msg_error("'--rsa-bits' must be 2048, 3072 or 4096, not '%s'",
				  rsa_bits);
			return usage_error("certs");
		}
		o->rsa_bits = (int)bits;
	}
	for (size_t k = 0; k < o->n_ips; k++) {
		if (ip_parse(o->ips[k], ip) < 0) {
			msg_error("'%s' is not an IPv4 or IPv6 address", o->ips[k]);
			return usage_error("certs");
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Small OpenSSL helpers                                               */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* OpenSSL's reason for the last failure, for messages. */
static const char *openssl_reason(void)
{
	const char *reason = ERR_reason_error_string(ERR_peek_last_error());

	return reason ? reason : "unknown openssl failure";
}

/* Keys are never prompted for: an encrypted key simply fails to load. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

/* "2025-01-31T12:00:00Z", or "(invalid time)". */
static void time_format(const ASN1_TIME *t, char *out, size_t n)
{
	struct tm tm;

	if (!t || ASN1_TIME_to_tm(t, &tm) != 1 ||
	    !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, n, "(invalid time)");
}

static int time_to_unix(const ASN1_TIME *t, long long *out)
{
	struct tm tm;
	time_t v;

	if (!t || ASN1_TIME_to_tm(t, &tm) != 1)
		return -1;
	v = timegm(&tm);
	if (v == (time_t)-1)
		return -1;
	*out = (long long)v;
	return 0;
}

/* The first certificate of a PEM (or, failing that, DER) buffer. */
static X509 *cert_parse(const char *data, size_t len)
{
	BIO *bio;
	X509 *cert;

	if (len > INT_MAX)
		return NULL;
	bio = BIO_new_mem_buf(data, (int)len);
	if (!bio)
		return NULL;
	cert = PEM_read_bio_X509(bio, NULL, no_passphrase, NULL);
	if (!cert) {
		const unsigned char *p = (const unsigned char *)data;

		cert = d2i_X509(NULL, &p, (long)len);
	}
	BIO_free(bio);
	return cert;
}

/*
 * Every certificate in a PEM buffer, in order; NULL when there is none.
 * Free with sk_X509_pop_free(stack, X509_free).
 */
static STACK_OF(X509) *cert_parse_all(const char *data, size_t len)
{
	STACK_OF(X509) *certs;
	BIO *bio;
	X509 *cert;

	if (len > INT_MAX)
		return NULL;
	certs = sk_X509_new_null();
	bio = BIO_new_mem_buf(data, (int)len);
	if (!certs || !bio)
		goto out_free;
	while ((cert = PEM_read_bio_X509(bio, NULL, no_passphrase, NULL))) {
		if (!sk_X509_push(certs, cert)) {
			X509_free(cert);
			goto out_free;
		}
	}
	BIO_free(bio);
	if (sk_X509_num(certs) == 0) {
		sk_X509_free(certs);
		return NULL;
	}
	return certs;
out_free:
	BIO_free(bio);
	sk_X509_pop_free(certs, X509_free);
	return NULL;
}

static EVP_PKEY *key_parse(const char *data, size_t len)
{
	BIO *bio;
	EVP_PKEY *key;

	if (len > INT_MAX)
		return NULL;
	bio = BIO_new_mem_buf(data, (int)len);
	if (!bio)
		return NULL;
	key = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	return key;
}

/* "ECDSA P-256", "RSA 2048 bits", ... */
static void key_describe(EVP_PKEY *key, char *out, size_t n)
{
	char group[32];
	const char *curve = group;

	if (!key) {
		snprintf(out, n, "(unreadable)");
	} else if (EVP_PKEY_is_a(key, "EC")) {
		if (EVP_PKEY_get_group_name(key, group, sizeof(group), NULL) != 1)
			curve = "(unknown curve)";
		/* OpenSSL's names for the NIST curves */
		else if (!strcmp(group, "prime256v1"))
			curve = "P-256";
		else if (!strcmp(group, "secp384r1"))
			curve = "P-384";
		else if (!strcmp(group, "secp521r1"))
			curve = "P-521";
		snprintf(out, n, "ECDSA %s", curve);
	} else if (EVP_PKEY_is_a(key, "RSA")) {
		snprintf(out, n, "RSA %d bits", EVP_PKEY_get_bits(key));
	} else {
		snprintf(out, n, "%s", EVP_PKEY_get0_type_name(key) ?
			 EVP_PKEY_get0_type_name(key) : "unknown");
	}
}

/* A copy of a memory BIO's contents in a malloc'd, NUL-terminated buffer. */
static char *bio_detach(BIO *bio, size_t *len)
{
	char *data, *copy;
	long n = BIO_get_mem_data(bio, &data);

	if (n < 0 || !(copy = malloc((size_t)n + 1)))
		return NULL;
	memcpy(copy, data, (size_t)n);
	copy[n] = '\0';
	*len = (size_t)n;
	return copy;
}

static char *cert_to_pem(X509 *cert, size_t *len)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *pem = NULL;

	if (bio && PEM_write_bio_X509(bio, cert) == 1)
		pem = bio_detach(bio, len);
	BIO_free(bio);
	return pem;
}

/* PKCS#8, unencrypted: what Kubernetes secrets and GnuTLS expect. */
static char *key_to_pem(EVP_PKEY *key, size_t *len)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *pem = NULL;
	char *data;
	long n;

	if (bio && PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL,
					     NULL) == 1)
		pem = bio_detach(bio, len);
	if (bio) {
		/* the BIO's copy of the key is wiped too */
		n = BIO_get_mem_data(bio, &data);
		if (n > 0)
			OPENSSL_cleanse(data, (size_t)n);
		BIO_free(bio);
	}
	return pem;
}

/* ------------------------------------------------------------------ */
/* Building certificates                                               */

static EVP_PKEY *key_generate(enum key_type type, int rsa_bits)
{
	if (type == KEY_RSA)
		return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)rsa_bits);
	return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

/* A positive serial of 128 random bits (RFC 5280 allows up to 20 octets). */
static int cert_set_random_serial(X509 *cert)
{
	unsigned char bytes[16];
	BIGNUM *bn;
	int ret = -1;

	if (RAND_bytes(bytes, sizeof(bytes)) != 1)
		return -1;
	bn = BN_bin2bn(bytes, sizeof(bytes), NULL);
	if (!bn)
		return -1;
	if (BN_is_zero(bn) && BN_set_word(bn, 1) != 1)
		goto out_free_bn;
	if (BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)))
		ret = 0;
out_free_bn:
	BN_free(bn);
	return ret;
}

/* Adds an extension written in OpenSSL's configuration syntax. */
static int cert_add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	int ret;

	X509V3_set_ctx(&v3, issuer ? issuer : cert, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	if (!ext)
		return -1;
	ret = X509_add_ext(cert, ext, -1) == 1 ? 0 : -1;
	X509_EXTENSION_free(ext);
	return ret;
}

static int alt_names_push(GENERAL_NAMES *names, int type, const void *data,
			  int len)
{
	GENERAL_NAME *gen = GENERAL_NAME_new();
	ASN1_STRING *value = type == GEN_DNS ? ASN1_IA5STRING_new() :
			     ASN1_OCTET_STRING_new();

	if (!gen || !value || ASN1_STRING_set(value, data, len) != 1)
		goto out_free;
	GENERAL_NAME_set0_value(gen, type, value);
	value = NULL;
	if (!sk_GENERAL_NAME_push(names, gen))
		goto out_free;
	return 0;
out_free:
	ASN1_STRING_free(value);
	GENERAL_NAME_free(gen);
	return -1;
}

static int cert_add_alt_names(X509 *cert, const struct service_names *sn,
			      const struct create_options *o)
{
	GENERAL_NAMES *names = sk_GENERAL_NAME_new_null();
	unsigned char ip[16];
	int ret = -1;

	if (!names)
		return -1;
	for (int k = 0; k < 4; k++) {
		if (alt_names_push(names, GEN_DNS, sn->name[k],
				   (int)strlen(sn->name[k])))
			goto out_free_names;
	}
	for (size_t k = 0; k < o->n_ips; k++) {
		int len = ip_parse(o->ips[k], ip);

		if (len < 0 || alt_names_push(names, GEN_IPADD, ip, len))
			goto out_free_names;
	}
	/* not critical: the subject is not empty */
	if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names, 0,
			      X509V3_ADD_DEFAULT) == 1)
		ret = 0;
out_free_names:
	GENERAL_NAMES_free(names);
	return ret;
}

static int name_add(X509_NAME *name, const char *field, const char *value)
{
	return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
					  (const unsigned char *)value, -1,
					  -1, 0) == 1 ? 0 : -1;
}

/* Signs with SHA-256, or the key's own digest for EdDSA (a reused CA). */
static int cert_sign(X509 *cert, EVP_PKEY *key)
{
	const EVP_MD *md = EVP_sha256();

	if (EVP_PKEY_is_a(key, "ED25519") || EVP_PKEY_is_a(key, "ED448"))
		md = NULL;
	return X509_sign(cert, key, md) > 0 ? 0 : -1;
}

/*
 * A new X509 v3 certificate for `key` named `common_name`, valid from a
 * few minutes ago for `days` (but never beyond the issuer), with the
 * subject key identifier and, when `issuer` is set, the authority key
 * identifier. Not signed yet.
 */
static X509 *cert_start(const char *common_name, EVP_PKEY *key, X509 *issuer,
			long days)
{
	X509 *cert = X509_new();
	X509_NAME *name = X509_NAME_new();

	if (!cert || !name)
		goto out_free;
	if (X509_set_version(cert, X509_VERSION_3) != 1 ||
	    cert_set_random_serial(cert) ||
	    !X509_gmtime_adj(X509_getm_notBefore(cert), -CERTS_BACKDATE) ||
	    !X509_time_adj_ex(X509_getm_notAfter(cert), (int)days, 0, NULL) ||
	    name_add(name, "O", "gpumend") ||
	    name_add(name, "CN", common_name) ||
	    X509_set_subject_name(cert, name) != 1 ||
	    X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) :
				 name) != 1 ||
	    X509_set_pubkey(cert, key) != 1 ||
	    cert_add_ext(cert, issuer, NID_subject_key_identifier, "hash"))
		goto out_free;
	if (issuer) {
		const ASN1_TIME *limit = X509_get0_notAfter(issuer);

		if (ASN1_TIME_compare(X509_get0_notAfter(cert), limit) > 0) {
			char when[40];

			time_format(limit, when, sizeof(when));
			msg_warning("the serving certificate expires with its CA on %s",
				    when);
			if (X509_set1_notAfter(cert, limit) != 1)
				goto out_free;
		}
		/* a reused CA may lack a subject key identifier */
		if (cert_add_ext(cert, issuer, NID_authority_key_identifier,
				 X509_get0_subject_key_id(issuer) ?
				 "keyid:always" : "keyid,issuer:always"))
			goto out_free;
	}
	X509_NAME_free(name);
	return cert;
out_free:
	X509_NAME_free(name);
	X509_free(cert);
	return NULL;
}

static X509 *ca_build(EVP_PKEY *key, long days)
{
	unsigned char tag[4];
	char common_name[64];
	X509 *cert;

	/* a distinct subject per CA, so that two bundles never get mixed up */
	if (RAND_bytes(tag, sizeof(tag)) != 1)
		return NULL;
	snprintf(common_name, sizeof(common_name),
		 "gpumend webhook CA %02x%02x%02x%02x",
		 tag[0], tag[1], tag[2], tag[3]);
	cert = cert_start(common_name, key, NULL, days);
	if (!cert)
		return NULL;
	if (cert_add_ext(cert, NULL, NID_basic_constraints,
			 "critical,CA:TRUE,pathlen:0") ||
	    cert_add_ext(cert, NULL, NID_key_usage,
			 "critical,keyCertSign,cRLSign") ||
	    cert_sign(cert, key)) {
		X509_free(cert);
		return NULL;
	}
	return cert;
}

static X509 *serving_build(EVP_PKEY *key, X509 *ca, EVP_PKEY *ca_key,
			   const struct service_names *sn,
			   const struct create_options *o)
{
	/* a CN holds at most 64 characters; it is informative only */
	const char *common_name = strlen(sn->name[2]) <= 64 ? sn->name[2] :
				  sn->name[0];
	const char *usage = EVP_PKEY_is_a(key, "RSA") ?
			    "critical,digitalSignature,keyEncipherment" :
			    "critical,digitalSignature";
	X509 *cert = cert_start(common_name, key, ca, o->days);

	if (!cert)
		return NULL;
	if (cert_add_ext(cert, ca, NID_basic_constraints, "critical,CA:FALSE") ||
	    cert_add_ext(cert, ca, NID_key_usage, usage) ||
	    cert_add_ext(cert, ca, NID_ext_key_usage, "serverAuth") ||
	    cert_add_alt_names(cert, sn, o) ||
	    cert_sign(cert, ca_key)) {
		X509_free(cert);
		return NULL;
	}
	return cert;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

/* Reads a whole file ('-': standard input) of at most CERTS_MAX_FILE bytes;
 * reports and returns NULL on failure. */
static char *file_read(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	const char *shown = strcmp(path, "-") ? path : INPUT_STDIN_NAME;
	char *data;
	size_t n;

	if (!f) {
		msg_error("cannot open '%s': %s", shown, strerror(errno));
		return NULL;
	}
	data = malloc(CERTS_MAX_FILE + 1);
	if (!data) {
		msg_error("out of memory");
		goto out_close;
	}
	n = fread(data, 1, CERTS_MAX_FILE + 1, f);
	if (ferror(f)) {
		msg_error("cannot read '%s': %s", shown, strerror(errno));
		goto out_free;
	}
	if (n > CERTS_MAX_FILE) {
		msg_error("'%s' is too large for a certificate file (over %d bytes)",
			  shown, CERTS_MAX_FILE);
		goto out_free;
	}
	data[n] = '\0';
	*len = n;
	if (f != stdin)
		fclose(f);
	return data;
out_free:
	free(data);
out_close:
	if (f != stdin)
		fclose(f);
	return NULL;
}

/* Wipes (for keys) and frees a file read into memory. */
static void file_data_free(char *data, size_t len, int secret)
{
	if (data && secret)
		OPENSSL_cleanse(data, len);
	free(data);
}

/* mkdir -p, reported. */
static int dir_make(const char *dir)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);
	struct stat st;

	if (n >= sizeof(path)) {
		msg_error("directory name too long: '%s'", dir);
		return -1;
	}
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			msg_error("cannot create directory '%s': %s", path,
				  strerror(errno));
			return -1;
		}
		path[i] = i < n ? '/' : '\0';
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		msg_error("'%s' is not a directory", dir);
		return -1;
	}
	return 0;
}

static int path_join(char *out, size_t n, const char *dir, const char *name)
{
	int len = snprintf(out, n, "%s/%s", dir, name);

	if (len < 0 || (size_t)len >= n) {
		msg_error("path too long: '%s/%s'", dir, name);
		return -1;
	}
	return 0;
}

/*
 * Writes `f` to DIR/NAME atomically (files.h): replacing NAME when
 * `replace`, else only when no file has that name, not even one that
 * appeared since it was checked. Reported; returns 0 or -1.
 */
static int out_file_write(const char *dir, struct out_file *f, int replace)
{
	char path[PATH_MAX];
	struct atomic_file af;
	struct stat st;
	int existed;

	if (path_join(path, sizeof(path), dir, f->name))
		return -1;
	existed = lstat(path, &st) == 0;
	if (atomic_begin(&af, path, f->mode,
			 replace ? ATOMIC_WRITE : ATOMIC_CREATE) ||
	    atomic_write(&af, f->pem, f->len) || atomic_commit(&af))
		return -1;
	f->created = !existed;
	return 0;
}

/* Reads DIR/NAME, reported; NULL on failure. */
static char *dir_file_read(const char *dir, const char *name, size_t *len)
{
	char path[PATH_MAX];

	if (path_join(path, sizeof(path), dir, name))
		return NULL;
	return file_read(path, len);
}

/* Loads and checks the CA of --reuse-ca; reported, 0 or -1. */
static int ca_load(const char *dir, X509 **ca, EVP_PKEY **ca_key)
{
	char *cert_pem, *key_pem;
	size_t cert_len = 0, key_len = 0;
	char why[256];
	int ret = -1;

	cert_pem = dir_file_read(dir, "ca.crt", &cert_len);
	key_pem = cert_pem ? dir_file_read(dir, "ca.key", &key_len) : NULL;
	if (!cert_pem || !key_pem)
		goto out_free;
	if (certs_check_pair(cert_pem, cert_len, key_pem, key_len, why,
			     sizeof(why))) {
		msg_error("cannot reuse the CA in '%s': %s", dir, why);
		goto out_free;
	}
	*ca = cert_parse(cert_pem, cert_len);
	*ca_key = key_parse(key_pem, key_len);
	if (!*ca || !*ca_key) {
		msg_error("cannot load the CA in '%s'", dir);
		goto out_free;
	}
	if (X509_check_ca(*ca) != 1) {
		msg_error("cannot reuse '%s/ca.crt': it is not a CA certificate",
			  dir);
		goto out_free;
	}
	ret = 0;
out_free:
	if (ret) {
		X509_free(*ca);
		EVP_PKEY_free(*ca_key);
		*ca = NULL;
		*ca_key = NULL;
	}
	file_data_free(cert_pem, cert_len, 0);
	file_data_free(key_pem, key_len, 1);
	return ret;
}

/* Prints the base64 of `data` on one line. */
static int print_base64(const char *data, size_t len)
{
	size_t n = 4 * ((len + 2) / 3) + 1;
	unsigned char *out;

	if (len > INT_MAX || !(out = malloc(n)))
		return -1;
	EVP_EncodeBlock(out, (const unsigned char *)data, (int)len);
	printf("%s\n", out);
	free(out);
	return fflush(stdout) == 0 ? 0 : -1;
}

static int certs_create(int argc, char **argv)
{
	struct create_options o;
	struct service_names sn;
	struct out_file files[4] = {
		{ .name = "ca.key", .mode = 0600, .secret = 1 },
		{ .name = "ca.crt", .mode = 0644 },
		{ .name = "tls.key", .mode = 0600, .secret = 1 },
		{ .name = "tls.crt", .mode = 0644 },
	};
	X509 *ca = NULL, *cert = NULL;
	EVP_PKEY *ca_key = NULL, *key = NULL;
	size_t first, ca_pem_len = 0;
	char *ca_pem = NULL;
	char path[PATH_MAX], until[40];
	int ret = 2;
	struct stat st;

	switch (create_options_parse(&o, argc, argv)) {
	case 0:
		break;
	case 1:
		return 0;
	default:
		return 2;
	}
	service_names_init(&sn, o.service, o.namespace_name);
	/* with --reuse-ca the CA files are inputs, not outputs */
	first = o.reuse_ca ? 2 : 0;

	if (dir_make(o.out_dir))
		return 2;
	if (!o.force) {
		int exists = 0;

		for (size_t k = first; k < 4; k++) {
			if (path_join(path, sizeof(path), o.out_dir,
				      files[k].name))
				return 2;
			if (lstat(path, &st) == 0) {
				msg_error("'%s' already exists (use --force to replace it)",
					  path);
				exists = 1;
			}
		}
		if (exists)
			return 2;
	}

	if (o.reuse_ca) {
		if (ca_load(o.out_dir, &ca, &ca_key))
			goto out_free;
	} else {
		ca_key = key_generate(o.key_type, o.rsa_bits);
		ca = ca_key ? ca_build(ca_key, o.ca_days) : NULL;
		if (!ca) {
			msg_error("cannot create the CA certificate: %s",
				  openssl_reason());
			goto out_free;
		}
	}
	key = key_generate(o.key_type, o.rsa_bits);
	cert = key ? serving_build(key, ca, ca_key, &sn, &o) : NULL;
	if (!cert) {
		msg_error("cannot create the serving certificate: %s",
			  openssl_reason());
		goto out_free;
	}

	files[0].pem = o.reuse_ca ? NULL : key_to_pem(ca_key, &files[0].len);
	files[1].pem = cert_to_pem(ca, &files[1].len);
	files[2].pem = key_to_pem(key, &files[2].len);
	files[3].pem = cert_to_pem(cert, &files[3].len);
	if ((!o.reuse_ca && !files[0].pem) || !files[1].pem ||
	    !files[2].pem || !files[3].pem) {
		msg_error("cannot encode the certificates as PEM");
		goto out_free;
	}
	for (size_t k = first; k < 4; k++) {
		if (out_file_write(o.out_dir, &files[k], o.force))
			goto out_remove;
	}

	ca_pem = files[1].pem;
	ca_pem_len = files[1].len;
	time_format(X509_get0_notAfter(cert), until, sizeof(until));
	msg_note("wrote %s in '%s' for '%s', valid until %s",
		 o.reuse_ca ? "tls.crt and tls.key" :
		 "ca.crt, ca.key, tls.crt and tls.key", o.out_dir, sn.name[2],
		 until);
	if (print_base64(ca_pem, ca_pem_len)) {
		msg_error("cannot write the caBundle to standard output");
		goto out_free;
	}
	ret = 0;
	goto out_free;

out_remove:
	/* leave nothing half-made behind: only files this run created */
	for (size_t k = first; k < 4; k++) {
		if (files[k].created &&
		    !path_join(path, sizeof(path), o.out_dir, files[k].name))
			unlink(path);
	}
out_free:
	for (size_t k = 0; k < 4; k++) {
		if (files[k].pem && files[k].secret)
			OPENSSL_cleanse(files[k].pem, files[k].len);
		free(files[k].pem);
	}
	X509_free(cert);
	EVP_PKEY_free(key);
	X509_free(ca);
	EVP_PKEY_free(ca_key);
	ERR_clear_error();
	return ret;
}

/* ------------------------------------------------------------------ */
/* certs check                                                         */

/* Prints the DNS and IP names of `cert` on two lines. */
static void alt_names_print(X509 *cert)
{
	GENERAL_NAMES *names = X509_get_ext_d2i(cert, NID_subject_alt_name,
						NULL, NULL);
	int n = names ? sk_GENERAL_NAME_num(names) : 0;
	int dns = 0, ips = 0;

	printf("dns names:   ");
	for (int k = 0; k < n; k++) {
		GENERAL_NAME *gen = sk_GENERAL_NAME_value(names, k);
		int type;
		ASN1_STRING *value = GENERAL_NAME_get0_value(gen, &type);

		if (type != GEN_DNS)
			continue;
		printf("%s%.*s", dns++ ? ", " : "", ASN1_STRING_length(value),
		       (const char *)ASN1_STRING_get0_data(value));
	}
	printf("%s\nip addresses: ", dns ? "" : "(none)");
	for (int k = 0; k < n; k++) {
		GENERAL_NAME *gen = sk_GENERAL_NAME_value(names, k);
		int type;
		ASN1_STRING *value = GENERAL_NAME_get0_value(gen, &type);
		char text[INET6_ADDRSTRLEN];
		int len;

		if (type != GEN_IPADD)
			continue;
		len = ASN1_STRING_length(value);
		if ((len != 4 && len != 16) ||
		    !inet_ntop(len == 4 ? AF_INET : AF_INET6,
			       ASN1_STRING_get0_data(value), text, sizeof(text)))
			snprintf(text, sizeof(text), "(malformed)");
		printf("%s%s", ips++ ? ", " : "", text);
	}
	printf("%s\n", ips ? "" : "(none)");
	GENERAL_NAMES_free(names);
}

static void name_print(const char *label, const X509_NAME *name)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *text;
	long n;

	if (bio && X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253) >= 0) {
		n = BIO_get_mem_data(bio, &text);
		printf("%s%.*s\n", label, (int)n, text);
	} else {
		printf("%s(unreadable)\n", label);
	}
	BIO_free(bio);
}

static void cert_print(const char *file, X509 *cert)
{
	char text[64];
	BIGNUM *serial = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), NULL);
	char *hex = serial ? BN_bn2hex(serial) : NULL;

	printf("file:        %s\n", file);
	name_print("subject:     ", X509_get_subject_name(cert));
	name_print("issuer:      ", X509_get_issuer_name(cert));
	printf("serial:      %s\n", hex ? hex : "(unreadable)");
	key_describe(X509_get0_pubkey(cert), text, sizeof(text));
	printf("key:         %s\n", text);
	alt_names_print(cert);
	time_format(X509_get0_notBefore(cert), text, sizeof(text));
	printf("not before:  %s\n", text);
	time_format(X509_get0_notAfter(cert), text, sizeof(text));
	printf("not after:   %s\n", text);
	OPENSSL_free(hex);
	BN_free(serial);
}

/*
 * Verifies `cert` (with the untrusted intermediates `chain`) for server
 * authentication against the certificates of `ca_file`. Returns 0, 1 with
 * the reason in `why`, or 2 after a reported input error.
 */
static int cert_verify(X509 *cert, STACK_OF(X509) *chain, const char *ca_file,
		       char *why, size_t whylen)
{
	STACK_OF(X509) *anchors;
	X509_STORE *store = NULL;
	X509_STORE_CTX *ctx = NULL;
	char *data;
	size_t len = 0;
	int ret = 2;

	data = file_read(ca_file, &len);
	if (!data)
		return 2;
	anchors = cert_parse_all(data, len);
	free(data);
	if (!anchors) {
		msg_error("'%s' holds no PEM certificate", ca_file);
		return 2;
	}
	store = X509_STORE_new();
	ctx = X509_STORE_CTX_new();
	if (!store || !ctx)
		goto out_free;
	for (int k = 0; k < sk_X509_num(anchors); k++) {
		if (X509_STORE_add_cert(store, sk_X509_value(anchors, k)) != 1)
			goto out_free;
	}
	if (X509_STORE_CTX_init(ctx, store, cert, chain) != 1 ||
	    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER) != 1)
		goto out_free;
	if (X509_verify_cert(ctx) == 1) {
		ret = 0;
	} else {
		set_err(why, whylen, "%s", X509_verify_cert_error_string(
				X509_STORE_CTX_get_error(ctx)));
		ret = 1;
	}
out_free:
	if (ret == 2)
		msg_error("cannot set up the verification against '%s'",
			  ca_file);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	sk_X509_pop_free(anchors, X509_free);
	return ret;
}

static int certs_check(int argc, char **argv)
{
	const char *file = NULL, *service = NULL, *namespace_name = NULL;
	const char *ca_file = NULL;
	struct service_names sn;
	STACK_OF(X509) *chain = NULL;
	X509 *cert = NULL;
	char *data;
	size_t len = 0;
	char when[40], why[256];
	int ret = 2, failed = 0, options_done = 0;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		int r = 0;

		if (!options_done && (!strcmp(arg, "-h") ||
				      !strcmp(arg, "--help"))) {
			fputs(check_usage, stdout);
			return 0;
		}
		if (!options_done && !strcmp(arg, "--")) {
			options_done = 1;
			continue;
		}
		if (options_done || arg[0] != '-' || !strcmp(arg, "-")) {
			if (file) {
				msg_usage("certs check", "unexpected argument '%s' (one file at a time)",
					  arg);
				return 2;
			}
			file = arg;
			continue;
		}
		if ((r = option_value(argc, argv, &i, "--service", &value)) != 0)
			service = value;
		else if ((r = option_value(argc, argv, &i, "--namespace", &value)) != 0)
			namespace_name = value;
		else if ((r = option_value(argc, argv, &i, "--ca", &value)) != 0)
			ca_file = value;
		else {
			msg_usage("certs check", "unknown option '%s'", arg);
			return 2;
		}
		if (r < 0)
			return usage_error("certs check");
	}
	if (!file) {
		msg_error("missing the certificate file to check");
		return usage_error("certs check");
	}
	if (check_label("service", service) ||
	    check_label("namespace", namespace_name))
		return usage_error("certs check");
	service_names_init(&sn, service, namespace_name);

	data = file_read(file, &len);
	if (!strcmp(file, "-"))
		file = INPUT_STDIN_NAME;
	if (!data)
		return 2;
	cert = cert_parse(data, len);
	if (!cert) {
		msg_error("'%s' holds no certificate (PEM or DER)", file);
		goto out_free;
	}
	/* certificates after the first are intermediates, for --ca */
	chain = cert_parse_all(data, len);
	if (chain)
		X509_free(sk_X509_shift(chain));
	cert_print(file, cert);

	if (X509_cmp_current_time(X509_get0_notBefore(cert)) >= 0) {
		time_format(X509_get0_notBefore(cert), when, sizeof(when));
		msg_error("'%s' is not valid yet: not before %s", file, when);
		failed = 1;
	}
	if (X509_cmp_current_time(X509_get0_notAfter(cert)) <= 0) {
		time_format(X509_get0_notAfter(cert), when, sizeof(when));
		msg_error("'%s' has expired: not after %s", file, when);
		failed = 1;
	}
	for (int k = 0; k < 4; k++) {
		/* the API server ignores the CN: subjectAltName only */
		if (X509_check_host(cert, sn.name[k], 0,
				    X509_CHECK_FLAG_NEVER_CHECK_SUBJECT |
				    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS,
				    NULL) != 1) {
			msg_error("'%s' does not name '%s' in its subjectAltName",
				  file, sn.name[k]);
			failed = 1;
		}
	}
	if ((X509_get_extension_flags(cert) & EXFLAG_XKUSAGE) &&
	    !(X509_get_extended_key_usage(cert) & XKU_SSL_SERVER)) {
		msg_error("'%s' is not for server authentication: its extendedKeyUsage lacks serverAuth",
			  file);
		failed = 1;
	}
	if (ca_file) {
		int r = cert_verify(cert, chain, ca_file, why, sizeof(why));

		if (r == 2)
			goto out_free;
		if (r == 1) {
			msg_error("'%s' does not verify against '%s': %s", file,
				  ca_file, why);
			failed = 1;
		}
	}
	printf("status:      %s\n", failed ? "failed" : "ok");
	ret = failed ? 1 : 0;
out_free:
	sk_X509_pop_free(chain, X509_free);
	X509_free(cert);
	free(data);
	ERR_clear_error();
	return ret;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */

int cmd_certs(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return certs_check(argc - 1, argv + 1);
	return certs_create(argc, argv);
}

int certs_check_pair(const char *cert_pem, size_t cert_len,
		     const char *key_pem, size_t key_len,
		     char *err, size_t errlen)
{
	X509 *cert = NULL;
	EVP_PKEY *key = NULL;
	char when[40];
	int ret = -1;

	set_err(err, errlen, "%s", "");
	cert = cert_parse(cert_pem, cert_len);
	if (!cert) {
		set_err(err, errlen, "the certificate does not parse as PEM");
		goto out_free;
	}
	key = key_parse(key_pem, key_len);
	if (!key) {
		set_err(err, errlen,
			"the private key does not parse as unencrypted PEM");
		goto out_free;
	}
	if (EVP_PKEY_eq(X509_get0_pubkey(cert), key) != 1) {
		set_err(err, errlen,
			"the private key does not belong to the certificate");
		goto out_free;
	}
	if (X509_cmp_current_time(X509_get0_notBefore(cert)) >= 0) {
		time_format(X509_get0_notBefore(cert), when, sizeof(when));
		set_err(err, errlen, "the certificate is not valid before %s",
			when);
		goto out_free;
	}
	if (X509_cmp_current_time(X509_get0_notAfter(cert)) <= 0) {
		time_format(X509_get0_notAfter(cert), when, sizeof(when));
		set_err(err, errlen, "the certificate expired on %s", when);
		goto out_free;
	}
	ret = 0;
out_free:
	EVP_PKEY_free(key);
	X509_free(cert);
	/* the webhook calls this from its threads: leave no errors queued */
	ERR_clear_error();
	return ret;
}

int certs_not_after(const char *cert_pem, size_t len, long long *unix_time)
{
	X509 *cert = cert_parse(cert_pem, len);
	int ret;

	if (!cert) {
		ERR_clear_error();
		return -1;
	}
	ret = time_to_unix(X509_get0_notAfter(cert), unix_time);
	X509_free(cert);
	ERR_clear_error();
	return ret;
}
