/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * certs.h - the webhook's certificates, on OpenSSL 3: `gpumend certs`
 * (a CA and a serving certificate the API server accepts), `gpumend certs
 * check`, and two checks the webhook uses when it (re)loads its pair.
 *
 * The Kubernetes API server verifies a webhook's certificate against the
 * caBundle of the webhook configuration and matches the service's DNS name
 * against the subjectAltName extension only; the common name is ignored.
 */
#ifndef GPUMEND_CERTS_H
#define GPUMEND_CERTS_H

#include <stddef.h>

/*
 * The `certs` subcommand; argv[0] is "certs".
 *
 *   certs --service NAME --namespace NS --out DIR [options]
 *	creates DIR/ca.crt, DIR/ca.key, DIR/tls.crt and DIR/tls.key and
 *	prints the base64 of ca.crt (the webhook's caBundle) on stdout.
 *   certs check FILE --service NAME --namespace NS [--ca FILE]
 *	prints what FILE holds and checks it can serve the service.
 *
 * Messages go to stderr through msg.h. Returns the exit code: 0 success, 1
 * a check failed, 2 a usage, input or output error.
 */
int cmd_certs(int argc, char **argv);

/*
 * Checks a certificate and private key pair in PEM (the first certificate
 * of `cert_pem` is the leaf, a DER certificate is accepted too; the buffers
 * need not be NUL-terminated): both parse, the key is the certificate's key
 * and the certificate is valid now.
 * Returns 0, or -1 with a lowercase sentence saying why in `err` (always
 * NUL-terminated when errlen > 0). Thread-safe; an encrypted key is refused
 * rather than prompted for.
 */
int certs_check_pair(const char *cert_pem, size_t cert_len,
		     const char *key_pem, size_t key_len,
		     char *err, size_t errlen);

/*
 * Stores in *unix_time the notAfter of the first certificate of `cert_pem`
 * (PEM, `len` bytes), in seconds since the epoch. Returns 0, or -1 when no
 * certificate parses.
 */
int certs_not_after(const char *cert_pem, size_t len, long long *unix_time);

#endif
