#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/certs.sh - `gpumend certs` and `gpumend certs check`, with
# everything they write verified independently by the openssl CLI.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): the subshell's exit trap would remove it at once
scratch >/dev/null
dir=$_scratch
svc=gpumend-webhook
ns=gpumend-system

# valid_days CERT DAYS: the certificate runs out between DAYS - 1 and
# DAYS + 1 days from now (openssl -checkend).
valid_days() {
	openssl x509 -in "$1" -noout -checkend $((($2 - 1) * 86400)) >/dev/null &&
		! openssl x509 -in "$1" -noout -checkend $((($2 + 1) * 86400)) >/dev/null
}

# mode_of FILE: the octal permission bits, e.g. 600.
mode_of() { stat -c %a "$1"; }

# san_of CERT: the subjectAltName extension as openssl prints it.
san_of() { openssl x509 -in "$1" -noout -ext subjectAltName 2>/dev/null; }

# same_key CERT KEY: the key is the certificate's.
same_key() {
	a=$(openssl x509 -in "$1" -noout -pubkey 2>/dev/null) || return 1
	b=$(openssl pkey -in "$2" -pubout 2>/dev/null) || return 1
	[ -n "$a" ] && [ "$a" = "$b" ]
}

# quiet COMMAND...: runs it without output.
quiet() { "$@" >/dev/null 2>&1; }

# expect_exit CODE COMMAND...: the command exits with CODE.
expect_exit() {
	_want=$1; shift
	"$@" >/dev/null 2>&1
	[ $? -eq "$_want" ]
}

# ---------------------------------------------------------------- ecdsa
ec="$dir/ec"
if "$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$ec" \
	--ip 127.0.0.1 --ip ::1 >"$dir/ec.bundle" 2>"$dir/ec.err"; then
	pass "ecdsa: certs succeeds"
else
	fail "ecdsa: certs succeeds ($(cat "$dir/ec.err"))"
fi
for f in ca.crt ca.key tls.crt tls.key; do
	check "ecdsa: writes $f" test -s "$ec/$f"
done
check "ecdsa: tls.key is mode 0600" test "$(mode_of "$ec/tls.key")" = 600
check "ecdsa: ca.key is mode 0600" test "$(mode_of "$ec/ca.key")" = 600
check "ecdsa: no temporary file left behind" \
	test -z "$(find "$ec" -name '.*' -type f)"

san=$(san_of "$ec/tls.crt")
for name in "DNS:$svc" "DNS:$svc.$ns" "DNS:$svc.$ns.svc" \
	"DNS:$svc.$ns.svc.cluster.local" "IP Address:127.0.0.1" \
	"IP Address:0:0:0:0:0:0:0:1"; do
	case "$san, " in
	*"$name, "*) pass "ecdsa: SAN $name" ;;
	*) fail "ecdsa: SAN $name (got: $san)" ;;
	esac
done

check "ecdsa: serving key is P-256" sh -c \
	"openssl pkey -in '$ec/tls.key' -noout -text | grep -q 'prime256v1'"
check "ecdsa: CA key is P-256" sh -c \
	"openssl pkey -in '$ec/ca.key' -noout -text | grep -q 'prime256v1'"
check "ecdsa: tls.key belongs to tls.crt" same_key "$ec/tls.crt" "$ec/tls.key"
check "ecdsa: ca.key belongs to ca.crt" same_key "$ec/ca.crt" "$ec/ca.key"
check "ecdsa: chain verifies (openssl verify -CAfile)" \
	quiet openssl verify -CAfile "$ec/ca.crt" "$ec/tls.crt"
check "ecdsa: chain verifies for sslserver" \
	quiet openssl verify -purpose sslserver -CAfile "$ec/ca.crt" "$ec/tls.crt"
check "ecdsa: CA basicConstraints critical CA:TRUE" sh -c \
	"openssl x509 -in '$ec/ca.crt' -noout -ext basicConstraints |
	 tr -d '\n' | grep -q 'critical *CA:TRUE'"
check "ecdsa: CA keyUsage keyCertSign, cRLSign" sh -c \
	"openssl x509 -in '$ec/ca.crt' -noout -ext keyUsage |
	 grep -q 'Certificate Sign, CRL Sign'"
check "ecdsa: CA has a subject key identifier" sh -c \
	"openssl x509 -in '$ec/ca.crt' -noout -ext subjectKeyIdentifier |
	 grep -q ':'"
check "ecdsa: serving certificate is for serverAuth" sh -c \
	"openssl x509 -in '$ec/tls.crt' -noout -ext extendedKeyUsage |
	 grep -q 'TLS Web Server Authentication'"
check "ecdsa: serving certificate is not a CA" sh -c \
	"openssl x509 -in '$ec/tls.crt' -noout -ext basicConstraints |
	 grep -q 'CA:FALSE'"
check "ecdsa: serving keyUsage is digitalSignature only" sh -c \
	"openssl x509 -in '$ec/tls.crt' -noout -ext keyUsage |
	 grep -q 'Digital Signature\$'"
check "ecdsa: serving certificate names its CA's key" sh -c \
	"openssl x509 -in '$ec/tls.crt' -noout -ext authorityKeyIdentifier |
	 grep -q ':'"
check "ecdsa: serial has 128 random bits at most" sh -c \
	"s=\$(openssl x509 -in '$ec/tls.crt' -noout -serial | cut -d= -f2);
	 [ \${#s} -ge 20 ] && [ \${#s} -le 34 ]"
check "ecdsa: not valid before now (backdated)" sh -c \
	"openssl x509 -in '$ec/tls.crt' -noout -checkend 0 >/dev/null &&
	 [ \$(date -d \"\$(openssl x509 -in '$ec/tls.crt' -noout -startdate |
	   cut -d= -f2)\" +%s) -lt \$(date +%s) ]"
check "ecdsa: valid for 365 days by default" sh -c \
	"openssl x509 -in '$ec/tls.crt' -noout -checkend \$((364 * 86400)) >/dev/null &&
	 ! openssl x509 -in '$ec/tls.crt' -noout -checkend \$((366 * 86400)) >/dev/null"
check "ecdsa: the CA valid for 3650 days by default" valid_days "$ec/ca.crt" 3650
check "ecdsa: caBundle is one line" test "$(wc -l <"$dir/ec.bundle")" -eq 1
check "ecdsa: caBundle decodes to ca.crt" sh -c \
	"base64 -d '$dir/ec.bundle' | cmp -s - '$ec/ca.crt'"

# ---------------------------------------------------------------- rsa
rsa="$dir/rsa"
check "rsa: certs succeeds" sh -c "'$GPUMEND' certs --service '$svc' \
	--namespace '$ns' --out '$rsa' --key-type rsa --days 30 \
	--ip 127.0.0.1 --ip ::1 >'$dir/rsa.bundle' 2>/dev/null"
check "rsa: serving key is RSA 2048" sh -c \
	"openssl pkey -in '$rsa/tls.key' -noout -text | grep -q 'Private-Key: (2048 bit'"
check "rsa: tls.key is mode 0600" test "$(mode_of "$rsa/tls.key")" = 600
check "rsa: ca.key is mode 0600" test "$(mode_of "$rsa/ca.key")" = 600
check "rsa: tls.key belongs to tls.crt" same_key "$rsa/tls.crt" "$rsa/tls.key"
check "rsa: chain verifies (openssl verify -CAfile)" \
	quiet openssl verify -CAfile "$rsa/ca.crt" "$rsa/tls.crt"
check "rsa: keyUsage adds keyEncipherment" sh -c \
	"openssl x509 -in '$rsa/tls.crt' -noout -ext keyUsage |
	 grep -q 'Digital Signature, Key Encipherment'"
check "rsa: SANs include ::1" sh -c \
	"openssl x509 -in '$rsa/tls.crt' -noout -ext subjectAltName |
	 grep -q 'IP Address:0:0:0:0:0:0:0:1'"
check "rsa: --days 30" sh -c \
	"openssl x509 -in '$rsa/tls.crt' -noout -checkend \$((29 * 86400)) >/dev/null &&
	 ! openssl x509 -in '$rsa/tls.crt' -noout -checkend \$((31 * 86400)) >/dev/null"
check "rsa: --days is the serving certificate's alone: the CA still 3650 days" \
	valid_days "$rsa/ca.crt" 3650
check "rsa: caBundle decodes to ca.crt" sh -c \
	"base64 -d '$dir/rsa.bundle' | cmp -s - '$rsa/ca.crt'"
check "rsa: --rsa-bits 3072" sh -c "'$GPUMEND' certs --service s \
	--namespace n --out '$dir/rsa3072' --key-type rsa --rsa-bits 3072 \
	>/dev/null 2>&1 && openssl pkey -in '$dir/rsa3072/tls.key' -noout \
	-text | grep -q 'Private-Key: (3072 bit'"

# ---------------------------------------------------------------- check
if "$GPUMEND" certs check "$ec/tls.crt" --service "$svc" --namespace "$ns" \
	--ca "$ec/ca.crt" >"$dir/check.out" 2>&1; then
	pass "check: a fresh certificate passes"
else
	fail "check: a fresh certificate passes ($(cat "$dir/check.out"))"
fi
for field in subject: issuer: "dns names:" "not before:" "not after:"; do
	check "check: prints '$field'" grep -q "^$field" "$dir/check.out"
done
check "check: prints the SANs" grep -q "$svc.$ns.svc.cluster.local" \
	"$dir/check.out"
check "check: reads standard input" sh -c "'$GPUMEND' certs check - \
	--service '$svc' --namespace '$ns' <'$ec/tls.crt' >/dev/null 2>&1"
check "check: accepts DER" sh -c "openssl x509 -in '$ec/tls.crt' \
	-outform DER -out '$dir/tls.der' && '$GPUMEND' certs check \
	'$dir/tls.der' --service '$svc' --namespace '$ns' >/dev/null 2>&1"

"$GPUMEND" certs check "$ec/tls.crt" --service other --namespace "$ns" \
	>/dev/null 2>"$dir/wrong.err"
rc=$?
check "check: wrong service name fails with 1" test "$rc" -eq 1
check "check: says which name is missing" \
	grep -q "does not name 'other.$ns.svc'" "$dir/wrong.err"
check "check: wrong namespace fails with 1" expect_exit 1 \
	"$GPUMEND" certs check "$ec/tls.crt" --service "$svc" --namespace default
check "check: another CA fails with 1" expect_exit 1 \
	"$GPUMEND" certs check "$ec/tls.crt" --service "$svc" --namespace "$ns" \
	--ca "$rsa/ca.crt"

# Certificates dated in the past and in the future, signed by our CA with
# `openssl ca` (which, unlike `openssl req` of OpenSSL 3.0, sets any dates).
ca_dir="$dir/openssl-ca"
mkdir -p "$ca_dir"
: >"$ca_dir/index.txt"
cat >"$ca_dir/ca.cnf" <<EOF
[ ca ]
default_ca = test_ca
[ test_ca ]
database = $ca_dir/index.txt
new_certs_dir = $ca_dir
rand_serial = yes
default_md = sha256
policy = any_name
copy_extensions = copy
unique_subject = no
[ any_name ]
commonName = supplied
EOF
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$ca_dir/dated.key" -out "$ca_dir/dated.csr" -subj "/CN=$svc" \
	-addext "subjectAltName=DNS:$svc,DNS:$svc.$ns,DNS:$svc.$ns.svc,DNS:$svc.$ns.svc.cluster.local" \
	>/dev/null 2>&1
# dated_cert OUT START END
dated_cert() {
	openssl ca -batch -config "$ca_dir/ca.cnf" -cert "$ec/ca.crt" \
		-keyfile "$ec/ca.key" -in "$ca_dir/dated.csr" -out "$1" \
		-startdate "$2" -enddate "$3" >/dev/null 2>&1
}
if dated_cert "$dir/expired.crt" 20200101000000Z 20200201000000Z; then
	"$GPUMEND" certs check "$dir/expired.crt" --service "$svc" \
		--namespace "$ns" >/dev/null 2>"$dir/expired.err"
	rc=$?
	check "check: expired certificate fails with 1" test "$rc" -eq 1
	check "check: says it has expired" grep -q "has expired" "$dir/expired.err"
	check "check: expired certificate fails --ca too" expect_exit 1 \
		"$GPUMEND" certs check "$dir/expired.crt" --service "$svc" \
		--namespace "$ns" --ca "$ec/ca.crt"
else
	fail "check: make an expired certificate with openssl ca"
fi
if dated_cert "$dir/future.crt" 20991231000000Z 21000131000000Z; then
	"$GPUMEND" certs check "$dir/future.crt" --service "$svc" \
		--namespace "$ns" >/dev/null 2>"$dir/future.err"
	rc=$?
	check "check: not-yet-valid certificate fails with 1" test "$rc" -eq 1
	check "check: says it is not valid yet" grep -q "not valid yet" \
		"$dir/future.err"
else
	fail "check: make a future certificate with openssl ca"
fi
# A certificate for client authentication only: the API server refuses it.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$dir/client.key" -out "$dir/client.crt" -subj "/CN=$svc" \
	-days 2 -addext "extendedKeyUsage=clientAuth" \
	-addext "subjectAltName=DNS:$svc,DNS:$svc.$ns,DNS:$svc.$ns.svc,DNS:$svc.$ns.svc.cluster.local" \
	>/dev/null 2>&1
check "check: clientAuth-only certificate fails with 1" expect_exit 1 \
	"$GPUMEND" certs check "$dir/client.crt" --service "$svc" --namespace "$ns"

# ---------------------------------------------------------------- usage
check "usage: no --service exits 2" expect_exit 2 \
	"$GPUMEND" certs --namespace "$ns" --out "$dir/u1"
check "usage: no --namespace exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --out "$dir/u1"
check "usage: no --out exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns"
check "usage: upper-case service exits 2" expect_exit 2 \
	"$GPUMEND" certs --service Webhook --namespace "$ns" --out "$dir/u1"
check "usage: service ending in '-' exits 2" expect_exit 2 \
	"$GPUMEND" certs --service webhook- --namespace "$ns" --out "$dir/u1"
check "usage: namespace with a dot exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace a.b --out "$dir/u1"
check "usage: 64-character service exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$(printf 'a%.0s' $(seq 64))" \
	--namespace "$ns" --out "$dir/u1"
check "usage: --days 0 exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --days 0
check "usage: --days 3651 exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --days 3651
check "usage: --days x exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --days 10x
for bad in 0 36501 10x; do
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" \
		--ca-days "$bad" >/dev/null 2>"$dir/u1.err"
	rc=$?
	check "usage: --ca-days $bad exits 2 naming the option" \
		sh -c "[ $rc = 2 ] && grep -q -- \"'--ca-days'\" '$dir/u1.err'"
done

# ---------------------------------------------------------------- ca-days
cd_dir="$dir/cadays"
"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$cd_dir" \
	--ca-days 40 --days 20 >"$dir/cadays.bundle" 2>"$dir/cadays.err"
rc=$?
check "ca-days: --ca-days 40 --days 20 succeeds" test "$rc" -eq 0
check "ca-days: the CA has 40 days" valid_days "$cd_dir/ca.crt" 40
check "ca-days: the serving certificate has 20 days" valid_days "$cd_dir/tls.crt" 20
check "ca-days: chain verifies" quiet openssl verify -CAfile "$cd_dir/ca.crt" "$cd_dir/tls.crt"
"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/cadays2" \
	--ca-days 10 --days 30 >/dev/null 2>"$dir/cadays2.err"
rc=$?
check "ca-days: --days beyond --ca-days: the serving certificate ends with its CA, said" \
	sh -c "[ $rc = 0 ] && grep -q 'expires with its CA' '$dir/cadays2.err' &&
	 [ \"\$(openssl x509 -in '$dir/cadays2/tls.crt' -noout -enddate)\" = \
	   \"\$(openssl x509 -in '$dir/cadays2/ca.crt' -noout -enddate)\" ]"
check "usage: bad --ip exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --ip 300.1.1.1
check "usage: --ip with a zone exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --ip fe80::1%eth0
check "usage: unknown --key-type exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --key-type dsa
check "usage: --rsa-bits without rsa exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --rsa-bits 2048
check "usage: --rsa-bits 1024 exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" \
	--key-type rsa --rsa-bits 1024
check "usage: unknown option exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/u1" --bogus
check "usage: option without value exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out
check "usage: nothing was written on usage errors" test ! -e "$dir/u1"
check "usage: check without a file exits 2" expect_exit 2 \
	"$GPUMEND" certs check --service "$svc" --namespace "$ns"
check "usage: check without --service exits 2" expect_exit 2 \
	"$GPUMEND" certs check "$ec/tls.crt" --namespace "$ns"
check "usage: check of a missing file exits 2" expect_exit 2 \
	"$GPUMEND" certs check "$dir/none.crt" --service "$svc" --namespace "$ns"
check "usage: check of a non-certificate exits 2" expect_exit 2 \
	"$GPUMEND" certs check "$dir/ec.bundle" --service "$svc" --namespace "$ns"
check "usage: --help exits 0 and mentions ca.key" sh -c \
	"'$GPUMEND' certs --help | grep -q 'ca.key'"
check "usage: check --help exits 0" sh -c \
	"'$GPUMEND' certs check --help | grep -q 'usage: gpumend certs check'"
"$GPUMEND" certs --service Webhook --namespace "$ns" --out "$dir/u1" \
	2>"$dir/usage.err"
check "usage: the message says why" grep -q "'Webhook' is not a valid service name" \
	"$dir/usage.err"

# ---------------------------------------------------------------- overwrite
cp -p "$ec/ca.crt" "$dir/ca.before"
cp -p "$ec/tls.key" "$dir/key.before"
"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$ec" \
	>"$dir/again.out" 2>"$dir/again.err"
rc=$?
check "overwrite: refused with exit 2" test "$rc" -eq 2
check "overwrite: says so" grep -q "already exists" "$dir/again.err"
check "overwrite: nothing on stdout" test ! -s "$dir/again.out"
check "overwrite: ca.crt unchanged" cmp -s "$ec/ca.crt" "$dir/ca.before"
check "overwrite: tls.key unchanged" cmp -s "$ec/tls.key" "$dir/key.before"
"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$ec" --force \
	--reuse-ca >"$dir/reuse.bundle" 2>/dev/null
rc=$?
check "reuse-ca: --reuse-ca --force succeeds" test "$rc" -eq 0
check "reuse-ca: keeps ca.crt" cmp -s "$ec/ca.crt" "$dir/ca.before"
check "reuse-ca: same caBundle" cmp -s "$dir/reuse.bundle" "$dir/ec.bundle"
check "reuse-ca: new tls.key" sh -c "! cmp -s '$ec/tls.key' '$dir/key.before'"
check "reuse-ca: new pair verifies with the old CA" \
	quiet openssl verify -CAfile "$dir/ca.before" "$ec/tls.crt"
check "reuse-ca: keys stay 0600" test "$(mode_of "$ec/tls.key")" = 600
check "reuse-ca: the new serving certificate has the default 365 days" \
	valid_days "$ec/tls.crt" 365
# a rotation past the first year: the serving certificate's days, not cut
# short by a CA that lived only as long as the first one
"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$ec" --force \
	--reuse-ca --days 1500 >"$dir/reuse2.bundle" 2>"$dir/reuse2.err"
rc=$?
check "reuse-ca: --days 1500 with the default CA succeeds" test "$rc" -eq 0
check "reuse-ca: --days 1500: the new serving certificate has 1500 days" \
	valid_days "$ec/tls.crt" 1500
check "reuse-ca: --days 1500: no warning that the CA ends first" \
	test ! -s "$dir/reuse2.err" -o -z "$(grep warning "$dir/reuse2.err")"
check "reuse-ca: --days 1500: the same caBundle" cmp -s "$dir/reuse2.bundle" "$dir/ec.bundle"
check "reuse-ca: --days 1500: ca.crt untouched" cmp -s "$ec/ca.crt" "$dir/ca.before"
check "reuse-ca: --days 1500: verifies with the old CA" \
	quiet openssl verify -CAfile "$dir/ca.before" "$ec/tls.crt"
check "reuse-ca: --ca-days with --reuse-ca exits 2" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$ec" --force \
	--reuse-ca --ca-days 100
check "reuse-ca: --ca-days with --reuse-ca leaves ca.crt untouched" \
	cmp -s "$ec/ca.crt" "$dir/ca.before"
check "reuse-ca: refuses a directory without a CA" expect_exit 2 \
	"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$dir/noca" \
	--reuse-ca
"$GPUMEND" certs --service "$svc" --namespace "$ns" --out "$ec" --force \
	>/dev/null 2>&1
rc=$?
check "force: --force succeeds" test "$rc" -eq 0
check "force: makes a new CA" sh -c "! cmp -s '$ec/ca.crt' '$dir/ca.before'"
check "force: keys stay 0600" test "$(mode_of "$ec/ca.key")" = 600
check "force: chain verifies" quiet openssl verify -CAfile "$ec/ca.crt" "$ec/tls.crt"

finish certs
