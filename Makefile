# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# gpumend - build, test, check, bench, install.
#
# `make` builds build/gpumend and build/gpumend-webhook, and only builds:
# when a Debian package the build needs is missing, it names it and `make
# deps` and stops. `make deps` installs them (apt-get, as root), and so do
# `make demo`, `make test` and the other targets that run what they build,
# so that the README's two commands need nothing but make and a compiler
# on a fresh Debian 12 machine.

CC       ?= cc
PREFIX   ?= /usr/local
BUILD    ?= build
# A build folder inside the tree is named relative to it, however it was
# given (tests pass BUILD=$GPUMEND_BUILD, an absolute path): the
# dependency files name their objects as the rules do, so a header's
# change rebuilds what includes it whichever way the folder was named.
override BUILD := $(patsubst $(CURDIR)/%,%,$(BUILD))
PKG_CONFIG ?= pkg-config
PKGS     := jansson yaml-0.1 libmicrohttpd openssl gnutls
# Each binary links only its own libraries: the CLI needs libcrypto for
# `certs`, the webhook libmicrohttpd and GnuTLS; the unit tests all.
CLI_PKGS     := jansson yaml-0.1 libcrypto
WEBHOOK_PKGS := jansson yaml-0.1 libmicrohttpd gnutls
# STATIC=1 links statically (make dist: the release CLIs).
STATIC   ?=

# The version is VERSION's one line; the revision is the commit built
# (git, when this is a git checkout), else the REVISION file that `make
# dist` puts in the source tarball, else "unknown". Both reach the code
# as -DGPUMEND_VERSION and -DGPUMEND_REVISION; a change rebuilds what uses
# them (version.stamp).
VERSION  := $(shell cat VERSION)
REVISION ?= $(or $(if $(wildcard .git),$(shell git rev-parse --short=7 HEAD 2>/dev/null)),$(shell cat REVISION 2>/dev/null),unknown)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith
ifdef CI
WARN     += -Werror
endif
OPT      ?= -O2 -g
CFLAGS_ALL = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) \
             $(OPT) $(EXTRA_CFLAGS) -MMD -MP $(INCLUDES) \
             -DGPUMEND_VERSION='"$(VERSION)"' -DGPUMEND_REVISION='"$(REVISION)"' \
             $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# $(call ldlibs,PACKAGES): the link flags of PACKAGES
ldlibs = $(if $(STATIC),-static) \
         $(shell $(PKG_CONFIG) $(if $(STATIC),--static) --libs $(1) 2>/dev/null) \
         -lpthread $(EXTRA_LDFLAGS)
LDLIBS_ALL = $(call ldlibs,$(PKGS))

# The layers, bottom up. Each folder sees only its own headers and those of
# the layers below it (INCLUDES), so an include that runs back up does not
# compile: rules/ <- lib/ <- certs/ <- cli/, lib/ <- helm/ <- cli/, and
# lib/ <- webhook/.

# rules/: the engine, one file per rule plus the core. Knows nothing of
# HTTP, TLS, YAML or files.
RULES_SRCS += rules/engine.c
RULES_SRCS += rules/patch.c
RULES_SRCS += rules/quantity.c
RULES_SRCS += rules/affinity.c
RULES_SRCS += rules/config.c
RULES_SRCS += rules/deprecated_workload_api.c
RULES_SRCS += rules/dra_unsupported.c
RULES_SRCS += rules/legacy_gpu_resource.c
RULES_SRCS += rules/dra.c
RULES_SRCS += rules/legacy_gpu_node_label.c
RULES_SRCS += rules/legacy_affinity_annotation.c
RULES_SRCS += rules/critical_pod_annotation.c
RULES_SRCS += rules/gpu_model_affinity.c
RULES_SRCS += rules/gpu_sharing.c
RULES_SRCS += rules/obsolete_cuda_hostpath.c
RULES_SRCS += rules/gpu_visibility.c
RULES_SRCS += rules/removed_gpu_feature_gate.c
RULES_SRCS += rules/obsolete_gpu_component.c
RULES_SRCS += rules/legacy_scheduler_config.c
RULES_SRCS += rules/invalid_resource.c
RULES_SRCS += rules/removed_api.c
RULES_SRCS += rules/triggers.c
RULES_SRCS += rules/pod_shapes.c
RULES_SRCS += rules/conditions.c
RULES_SRCS += rules/values.c
RULES_SRCS += rules/rule_help.c
$(BUILD)/rules/%.o: INCLUDES := -Irules

# lib/: what the layers above share. Buffers, messages, json regions, the
# YAML/JSON source reader and emitter, the config file, the one-pass JSON
# reader, the AdmissionReview answer, input files and atomic writes, the
# text patcher, the object of a finding.
LIB_SRCS += lib/buf.c
LIB_SRCS += lib/msg.c
LIB_SRCS += lib/arena.c
LIB_SRCS += lib/yaml_source.c
LIB_SRCS += lib/yaml_emit.c
LIB_SRCS += lib/config_file.c
LIB_SRCS += lib/json_scan.c
LIB_SRCS += lib/converge.c
LIB_SRCS += lib/nul.c
LIB_SRCS += lib/json_write.c
LIB_SRCS += lib/admission.c
LIB_SRCS += lib/registration.c
LIB_SRCS += lib/utf16.c
LIB_SRCS += lib/files.c
LIB_SRCS += lib/text_patch.c
LIB_SRCS += lib/report_object.c
$(BUILD)/lib/%.o: INCLUDES := -Irules -Ilib

# certs/: certificate work (`gpumend certs`), on the shared layer.
CERTS_SRCS += certs/certs.c
$(BUILD)/certs/%.o: INCLUDES := -Ilib -Icerts

# helm/: Helm charts, templates and values migrated in place. helm.h is
# its one public header.
HELM_SRCS += helm/template_mask.c
HELM_SRCS += helm/template_migrate.c
HELM_SRCS += helm/chart.c
$(BUILD)/helm/%.o: INCLUDES := -Irules -Ilib -Ihelm

# cli/: the CLI. Subcommands, walks, diffs, report formats.
CLI_SRCS += cli/args.c
CLI_SRCS += cli/walk.c
CLI_SRCS += cli/ignore.c
CLI_SRCS += cli/stream.c
CLI_SRCS += cli/diff.c
CLI_SRCS += cli/report.c
CLI_SRCS += cli/migrate.c
CLI_SRCS += cli/lint.c
CLI_SRCS += cli/cmd_misc.c
CLI_SRCS += cli/explain.c
CLI_SRCS += cli/review.c
CLI_SRCS += cli/webhook_config.c
CLI_SRCS += cli/completion.c
CLI_MAIN := cli/main.c
$(BUILD)/cli/%.o: INCLUDES := -Irules -Ilib -Icerts -Ihelm -Icli

# webhook/: the server. TLS, HTTP, metrics, logs, reloads.
WEBHOOK_SRCS += webhook/log.c
WEBHOOK_SRCS += webhook/metrics.c
WEBHOOK_SRCS += webhook/tls.c
WEBHOOK_SRCS += webhook/server.c
WEBHOOK_SRCS += webhook/linger.c
WEBHOOK_SRCS += webhook/mhd_guard.c
WEBHOOK_MAIN := webhook/main.c
$(BUILD)/webhook/%.o: INCLUDES := -Irules -Ilib -Iwebhook

# The tests see every layer.
$(BUILD)/tests/%.o: INCLUDES := -Irules -Ilib -Icerts -Ihelm -Icli -Iwebhook

UNIT_SRCS := $(wildcard tests/unit/*.c)

ALL_SRCS     = $(RULES_SRCS) $(LIB_SRCS) $(CERTS_SRCS) $(HELM_SRCS) $(CLI_SRCS) \
               $(WEBHOOK_SRCS)
# rules/ and lib/ reach the binaries as an archive, so that each takes
# only the objects it uses (the webhook none of the CLI's files and text
# patching).
BASE_OBJS    = $(patsubst %.c,$(BUILD)/%.o,$(RULES_SRCS) $(LIB_SRCS))
BASE_LIB     = $(BUILD)/libgpumend.a
CLI_OBJS     = $(patsubst %.c,$(BUILD)/%.o,$(CERTS_SRCS) $(HELM_SRCS) $(CLI_SRCS))
WEBHOOK_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(WEBHOOK_SRCS))
TEST_OBJS    = $(patsubst %.c,$(BUILD)/%.o,$(ALL_SRCS))
ALL_OBJS     = $(TEST_OBJS) \
               $(patsubst %.c,$(BUILD)/%.o,$(CLI_MAIN) $(WEBHOOK_MAIN) $(UNIT_SRCS))

.PHONY: all deps deps-check test-deps test check bench demo install clean fuzz \
	fresh generated format

all: $(BUILD)/gpumend $(BUILD)/gpumend-webhook

# $(call apt_install,WHAT,PACKAGES[,OPTIONS]): shell text that installs
# PACKAGES (apt-get install OPTIONS, as root; else an error naming them)
# when $$missing, set before it, is not empty.
apt_install = \
	if [ -n "$$missing" ]; then \
	  echo "gpumend: installing $(1) ($$missing)"; \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "gpumend: error: run as root or install: $(2)" >&2; \
	    exit 2; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(APT_GET) update -qq && $(APT_GET) install -y -qq $(3) $(2) >/dev/null; \
	fi

# The Debian packages the build needs: the compiler, pkg-config and, for
# each library of PKGS (a pkg-config name), its -dev package; and the
# commands the demo and the tests run besides. `deps-check` names the
# build's missing ones and stops; `deps` installs those and the commands'
# (as root). SKIP_DEPS=1 checks nothing (a package build: its
# Build-Depends did). APT_GET is the apt-get to run (tests/suites/deps.sh
# gives one that only records what it is asked).
APT_GET  ?= apt-get
PKG_DEBS := jansson:libjansson-dev yaml-0.1:libyaml-dev \
            libmicrohttpd:libmicrohttpd-dev openssl:libssl-dev libcrypto:libssl-dev \
            gnutls:libgnutls28-dev
RUN_TOOLS := openssl:openssl curl:curl jq:jq
# $(build_missing): shell text that sets $$missing to the Debian packages
# the build lacks (without pkg-config, which tells which libraries are
# there, every library's).
build_missing = \
	missing=""; \
	command -v $(firstword $(CC)) >/dev/null 2>&1 || missing=" build-essential"; \
	pc=1; command -v $(firstword $(PKG_CONFIG)) >/dev/null 2>&1 || \
	  { pc=0; missing="$$missing pkg-config"; }; \
	for p in $(PKGS); do \
	  [ $$pc = 1 ] && $(PKG_CONFIG) --exists $$p 2>/dev/null && continue; \
	  d=$$p; for m in $(PKG_DEBS); do [ "$${m%%:*}" = $$p ] && d=$${m\#*:}; done; \
	  case "$$missing " in *" $$d "*) ;; *) missing="$$missing $$d" ;; esac; \
	done; \
	missing=$${missing\# }
deps-check:
	@[ -z "$(SKIP_DEPS)" ] || exit 0; \
	$(build_missing); \
	if [ -n "$$missing" ]; then \
	  echo "gpumend: error: the build needs these Debian packages: $$missing" >&2; \
	  echo "gpumend: install them with 'make deps' (as root), or apt-get install $$missing" >&2; \
	  exit 2; \
	fi
deps:
	@[ -z "$(SKIP_DEPS)" ] || exit 0; \
	$(build_missing); \
	for t in $(RUN_TOOLS); do \
	  command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t#*:}"; done; \
	$(call apt_install,build dependencies,$$missing)

# What the objects wait for: the targets that run what they build (the
# README's `make demo` and `make test`, and those like them) install what
# is missing; any other build only checks, and stops naming it.
INSTALL_GOALS := demo test check bench soak e2e
BUILD_DEPS := $(if $(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),deps,deps-check)

# The objects whose sources use the version or revision are rebuilt when
# either changes.
VERSION_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(shell grep -l 'GPUMEND_VERSION\|GPUMEND_REVISION' \
                 $(ALL_SRCS) $(CLI_MAIN) $(WEBHOOK_MAIN) 2>/dev/null))
$(VERSION_OBJS): $(BUILD)/version.stamp
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(REVISION)' | cmp -s - $@ || echo '$(VERSION) $(REVISION)' >$@
.PHONY: FORCE revision
FORCE:

# Prints the revision (for the image's build and its label).
revision:
	@echo '$(REVISION)'

$(BUILD)/%.o: %.c | $(BUILD_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BASE_LIB): $(BASE_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/gpumend: $(CLI_OBJS) $(BUILD)/$(CLI_MAIN:.c=.o) $(BASE_LIB)
	$(CC) $(OPT) $(EXTRA_CFLAGS) -o $@ $^ $(call ldlibs,$(CLI_PKGS))

$(BUILD)/gpumend-webhook: $(WEBHOOK_OBJS) $(BUILD)/$(WEBHOOK_MAIN:.c=.o) $(BASE_LIB)
	$(CC) $(OPT) $(EXTRA_CFLAGS) -o $@ $^ $(call ldlibs,$(WEBHOOK_PKGS))

$(BUILD)/test_unit: $(TEST_OBJS) $(patsubst %.c,$(BUILD)/%.o,$(UNIT_SRCS))
	$(CC) $(OPT) $(EXTRA_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

# The tools only the tests use (as root, when missing): TEST_TOOLS are
# commands, as COMMAND:PACKAGE (promtool checks the alerting rules of
# manifests/monitoring and the /metrics page; node and npm run
# tests/schema/validate.mjs and install the SARIF multitool; pre-commit
# runs the hooks of .pre-commit-hooks.yaml; valgrind counts the
# instructions of tests/suites/complexity.sh; reuse checks the licence
# lines; mandoc the man pages; zsh and fish run the completions;
# clang-format checks the C style of tests/suites/style.sh),
# TEST_DEBS packages checked by name (Go and the sources
# tests/helm-template builds with; python3-yaml, which
# tests/tools/ci_run.py reads the CI drop-ins with; python3-jsonschema,
# which checks the chart's values against values.schema.json). kubectl, kustomize,
# celcheck and the schema validators come from tests/tools/get.sh, which
# the suites call.
TEST_TOOLS := wrk:wrk valgrind:valgrind promtool:prometheus node:nodejs npm:npm pre-commit:pre-commit \
              reuse:reuse mandoc:mandoc zsh:zsh fish:fish clang-format:clang-format
TEST_DEBS := golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v2-dev \
             python3-yaml python3-jsonschema
test-deps:
	@missing=""; \
	for t in $(TEST_TOOLS); do \
	  command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t#*:}"; done; \
	for p in $(TEST_DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q ' installed$$' || \
	    missing="$$missing $$p"; done; \
	$(call apt_install,test tools,$$missing,--no-install-recommends)

# Runs every test suite; the last line is "N passed, N failed, N skipped",
# after the list of the checks skipped (under CI=true a skip not allowed
# by tests/skips.allow fails).
test: all $(BUILD)/test_unit test-deps
	@GPUMEND_BUILD=$(BUILD) sh tests/run.sh

# The whole suite again with AddressSanitizer and UBSan.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
check:
	@GPUMEND_SANITIZE=1 GPUMEND_SLOW=3 $(MAKE) --no-print-directory BUILD=build-asan \
	  OPT="-O1 -g" EXTRA_CFLAGS="$(SAN)" test

demo: all
	@sh tests/demo.sh $(BUILD)

# Lays out the lines of C written or changed since .clang-format came in,
# as tests/suites/style.sh wants them (tests/tools/format-check.sh --fix);
# the code that was there before keeps its layout.
format:
	@sh tests/tools/format-check.sh --fix

# Rewrites every file that is gpumend's own output, after a change to the
# rules, their conditions or the config defaults: the base's config and
# registration, the chart's copies (with the alerts), and the expected
# registrations of tests/webhook-config. Review the diff before committing.
generated: all
	$(BUILD)/gpumend config >manifests/base/config.yaml
	$(BUILD)/gpumend webhook-config -c manifests/base/config.yaml \
	  >manifests/base/mutatingwebhookconfiguration.yaml
	cp manifests/base/config.yaml charts/gpumend/files/config.yaml
	cp manifests/base/mutatingwebhookconfiguration.yaml \
	  charts/gpumend/files/mutatingwebhookconfiguration.yaml
	cp manifests/monitoring/prometheusrule.yaml charts/gpumend/files/
	@WEBHOOK_CONFIG_UPDATE=1 GPUMEND_BUILD=$(BUILD) \
	  sh tests/suites/webhook_config.sh | tail -n 1

bench: all
	@sh tests/bench/run.sh $(BUILD)

# Ten minutes (SOAK_SECONDS) of TLS load on the webhook at half its peak:
# no error, RSS growth under 1 MiB. Report in $(BUILD)/soak.md.
.PHONY: soak
soak: all
	@sh tests/soak.sh $(BUILD)

# libFuzzer targets (tests/fuzz/run.sh): each of FUZZ_TARGETS (default all)
# runs FUZZ_SECONDS (default 300); fuzz-smoke runs each for a minute, as CI
# does. Built with clang and sanitizers in build-fuzz.
fuzz:
	@FUZZ_SECONDS=$(or $(FUZZ_SECONDS),300) MAKE="$(MAKE)" \
	  FUZZ_SRCS="$(ALL_SRCS)" \
	  sh tests/fuzz/run.sh $(FUZZ_TARGETS)
	@$(MAKE) --no-print-directory gate GATE_COUNT=$(or $(GATE_COUNT),1000000)

fuzz-smoke:
	@FUZZ_SECONDS=60 MAKE="$(MAKE)" \
	  FUZZ_SRCS="$(ALL_SRCS)" \
	  sh tests/fuzz/run.sh $(FUZZ_TARGETS)

# The gate (tests/gate/run.sh): the registration's matchConditions,
# evaluated by cel-go as the API server does, against `gpumend review
# --batch --entry` on GATE_COUNT objects (default 100,000) of a seeded
# generator (GATE_SEED, default from the clock; tests/cel/gate*.go):
# superset, no condition error or overrun, selectivity but for the
# classes of tests/gate/classes.tsv. Failing objects become regression
# cases in GATE_OUT (default $(BUILD)/gate). `make fuzz` runs it on a
# million.
.PHONY: gate
gate: all
	@GATE_COUNT=$(or $(GATE_COUNT),100000) sh tests/gate/run.sh $(BUILD)

# End to end behind a real kube-apiserver and kube-scheduler on 127.0.0.1,
# built once from Debian's kubernetes source and cached in ~/.cache/gpumend.
.PHONY: e2e
e2e: all
	@GPUMEND_BUILD=$(BUILD) sh tests/e2e/run.sh

# The README's two commands on a fresh Debian 12 (debootstrap minbase, plus
# git, make and build-essential), as root in a chroot: both must exit 0, with
# 0 failed and 0 skipped. As root; the debootstrap tarball is cached in
# ~/.cache/gpumend.
fresh:
	@sh tests/fresh.sh

# The release artefacts in dist/ (tests/dist/build.sh): the source tarball
# (with a REVISION file), the Helm chart (gpumend-VERSION.tgz), the gpumend
# CLI statically linked for linux-amd64 and linux-arm64 (cross-compiled through Debian's multiarch packages,
# installed when missing, as root), NOTICES and SHA256SUMS. dist-test runs
# each static CLI alone in an empty root (arm64 under qemu-aarch64-static)
# against this build, and builds the tarball. Not part of `make check`.
.PHONY: dist dist-test
dist:
	@MAKE="$(MAKE)" sh tests/dist/build.sh

dist-test: all
	@GPUMEND_BUILD=$(BUILD) sh tests/dist/test.sh

# The Debian package (tests/deb/build.sh): dpkg-buildpackage -b from
# debian/ in a copy of the committed tree, lintian without errors, the
# .deb copied to dist/. deb-test installs it on a fresh Debian 12 root
# (debootstrap, cached as `make fresh` caches it), runs both binaries from
# /usr/bin and removes it. As root; not part of `make check`.
.PHONY: deb deb-test
deb:
	@MAKE="$(MAKE)" sh tests/deb/build.sh

deb-test:
	@sh tests/deb/test.sh

# The container image for linux/amd64 and linux/arm64 (tests/image/build.sh),
# built offline with buildah (installed when missing) from the Dockerfile:
# each architecture's root is made here (tests/image/rootfs.sh; arm64
# cross-compiled through Debian's multiarch packages, installed when
# missing, as root), then the two images are joined in a manifest list.
# image-test tests each as the Deployment runs it: the binaries run inside
# it (arm64 under qemu-aarch64-static) as user 65532 with nothing
# writable, the webhook inside it answers a review over TLS as the host's
# build does. IMAGE names the list (default gpumend:VERSION), IMAGE-ARCH
# each image; IMAGE_ARCHES (default amd64 arm64) chooses the architectures.
.PHONY: image image-test
image:
	@GPUMEND_BUILD=$(BUILD) MAKE="$(MAKE)" sh tests/image/build.sh

image-test: all
	@GPUMEND_BUILD=$(BUILD) sh tests/image/test.sh

# Pushes the manifest list and its images (IMAGE, default gpumend:VERSION)
# to REGISTRY (HOST[:PORT][/PATH]) as REGISTRY/gpumend:VERSION, with
# buildah; TLS_VERIFY=false for a registry without TLS. Then point the
# manifests at it: kustomize edit set image gpumend=REGISTRY/gpumend:VERSION.
.PHONY: image-push
image-push:
	@[ -n "$(REGISTRY)" ] || { echo "gpumend: error: name the registry:" \
	  "make image-push REGISTRY=HOST[:PORT][/PATH]" >&2; exit 2; }
	buildah manifest push --all --quiet --tls-verify=$(or $(TLS_VERIFY),true) \
	  $(or $(IMAGE),gpumend:$(VERSION)) docker://$(REGISTRY)/gpumend:$(VERSION)
	@echo "gpumend: pushed $(REGISTRY)/gpumend:$(VERSION); now, in your" \
	  "overlay: kustomize edit set image gpumend=$(REGISTRY)/gpumend:$(VERSION)"

# The binaries, the man pages and the shell completions (printed by the
# gpumend just built), under DESTDIR and PREFIX. zsh looks in
# site-functions under /usr/local, in Debian's vendor-completions under /usr.
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
MAN_PAGES := man/gpumend.1 man/gpumend.yaml.5 man/gpumend-webhook.8
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(BUILD)/gpumend $(BUILD)/gpumend-webhook $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 man/gpumend.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/gpumend.yaml.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 man/gpumend-webhook.8 $(DESTDIR)$(MANDIR)/man8/
	$(BUILD)/gpumend completion bash >$(DESTDIR)$(BASHCOMPDIR)/gpumend
	$(BUILD)/gpumend completion zsh >$(DESTDIR)$(ZSHCOMPDIR)/_gpumend
	$(BUILD)/gpumend completion fish >$(DESTDIR)$(FISHCOMPDIR)/gpumend.fish

clean:
	rm -rf build build-asan build-dist build-deb build-image dist

-include $(ALL_OBJS:.o=.d)
