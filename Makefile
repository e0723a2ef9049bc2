# passkeyd — a software FIDO2 authenticator. `make run` and `make test` do everything.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
# Every SwiftPM build runs in an environment that is the same whoever started it (scripts/same-env
# says why: SwiftPM rebuilds part of the tree when any variable differs).
SWIFTPM = $(CURDIR)/scripts/same-env $(SWIFT)
VENV := .venv
PY := $(CURDIR)/$(VENV)/bin/python
# Inputs per fuzz target: `make fuzz`, and the smoke run at the end of `make test`, which also
# stops each target after FUZZ_SMOKE_MAX_TIME seconds (the keystore target is the slow one). The
# smoke run's seed is fixed: CI replays what was run here, and exploring is `make fuzz`'s job.
FUZZ_RUNS ?= 1000000
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SMOKE_MAX_TIME ?= 60
FUZZ_SMOKE_SEED ?= 1

.PHONY: deps build release release-build dist build-needs test test-unit unit interop architecture format format-lint run bench docs fuzz clean install uninstall man screenshots

## The release build everything shipped comes from (`make install`, `make dist`, the release smoke
## tests, the fuzz build's macro plugin): the Swift runtime linked in (--static-swift-stdlib), so
## the executables run where no Swift toolchain is. A folder of its own, so a release build never
## waits for (or holds) the lock of the debug build in .build.
RELEASE_SCRATCH ?= .build-release
# RELEASE_MACRO_PLUGIN (make test sets it): a macro plugin this source's debug build already made,
# loaded instead of building swift-syntax a second time, in release (Package.swift, PASSKEYD_MACRO_PLUGIN).
# Every build in RELEASE_SCRATCH gets it alike: a manifest that differs between two of them
# would rebuild the folder.
RELEASE_ENV = $(if $(RELEASE_MACRO_PLUGIN),PASSKEYD_MACRO_PLUGIN=$(RELEASE_MACRO_PLUGIN))
RELEASE_FLAGS = -c release --static-swift-stdlib --scratch-path $(RELEASE_SCRATCH)
RELEASE_BUILD = $(RELEASE_ENV) $(SWIFTPM) build $(RELEASE_FLAGS)

deps:
	@scripts/deps.sh

build: deps
	$(SWIFTPM) build

## What building passkeyd needs (never installed here: `make deps` is the test setup).
build-needs:
	@scripts/build-needs.sh

## Each shipped executable is built by name (EXECUTABLES, below). A plain `swift build` let
## SwiftPM plan products nobody asked for: CI's `make dist`, after `make release` had built
## everything, set out to link GRDB's dynamic library product (GRDB-dynamic), which cannot link
## against the static Swift runtime ("cannot find -lCoreFoundation"), and failed. By name, a
## plan holds only what the executables need. `make install` builds the same way.
BUILD_EXECUTABLES = for p in $(EXECUTABLES); do $(SCRATCH_ENV) $(SWIFTPM) build $(BUILD_CONFIG) --product $$p || exit 1; done

release-build: override CONFIG = release
release-build: build-needs
	$(BUILD_EXECUTABLES)

## Everything `make install` and `make dist` copy, built as the user (so `sudo make install` only copies).
release: release-build
	$(MAKE) --no-print-directory man CONFIG=release
	$(MAKE) --no-print-directory -C integrations/c
	$(MAKE) --no-print-directory -C integrations/ssh
	$(MAKE) --no-print-directory -C integrations/preload

## The release packages in dist/out (docs/packaging.md): passkeyd_VERSION_ARCH.deb and
## passkeyd-VERSION-linux-ARCH.tar.gz, byte-identical for one commit and SOURCE_DATE_EPOCH.
DIST_PYTHON = $(if $(wildcard $(PY)),$(PY),python3)
# RELEASE_BUILT=1: `make release` has just run (make test's release stage), so dist only packages:
# no SwiftPM run in that folder beside the release smoke tests, which run its products.
dist: $(if $(RELEASE_BUILT),,release)
	RELEASE_DIR=$(RELEASE_SCRATCH)/release MAN_DIR=$(RELEASE_SCRATCH)/plugins/GenerateManual/outputs \
	  PYTHON=$(DIST_PYTHON) scripts/dist.sh

## Every test the project has: the Swift suites, the interop suites against a real daemon, the
## packages checked in a clean Debian root, a fuzz smoke run. Each configuration is built once;
## the release and fuzz builds run (niced) beside the debug tests; a stage-times table ends it
## (scripts/test.sh says what runs beside what).
test:
	@PY=$(PY) SWIFT=$(SWIFT) FUZZ_SMOKE_RUNS=$(FUZZ_SMOKE_RUNS) FUZZ_SMOKE_MAX_TIME=$(FUZZ_SMOKE_MAX_TIME) \
	  FUZZ_SMOKE_SEED=$(FUZZ_SMOKE_SEED) scripts/test.sh

## The module map: imports against Package.swift and docs/architecture.md, each CTAP key stated
## once (scripts/check-ctap-keys), and the checks' own tests.
architecture: deps
	scripts/check-architecture
	scripts/check-ctap-keys
	$(PY) -m pytest -p no:cacheprovider -q Tests/Architecture

## The code's layout, by the toolchain's `swift format` and .swift-format: `make format` rewrites
## the files; `make format-lint` (part of `make test`) fails on any line that is not as it writes it.
FORMATTED := Sources Tests Package.swift
format: deps
	$(SWIFT) format format --in-place --recursive --parallel $(FORMATTED)

format-lint: deps
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)

## The Swift suites that start no passkeyd or passkeyctl process: everything but PasskeydTests
## and PasskeyctlTests, without the interop suites and the architecture check.
UNIT_SKIP := ^(PasskeydTests|PasskeyctlTests)\.
test-unit: deps
	$(SWIFTPM) build --build-tests
	$(SWIFT) test --skip-build --skip '$(UNIT_SKIP)'

## The former name of test-unit.
unit: test-unit

interop: deps
	$(MAKE) -C Tests/Interop PY=$(PY) SWIFT=$(SWIFT) all

## The web demo's pictures in docs/images (docs/passkeydemo.md, README), taken by its test in
## headless Chromium with the extension against a real passkeyd.
screenshots: deps
	$(SWIFTPM) build --product passkeyd
	$(SWIFTPM) build --product passkeyctl
	$(SWIFTPM) build --product passkeydemo
	cd Tests/Interop && PASSKEYDEMO_SCREENSHOTS=$(CURDIR)/docs/images timeout -k 10 600 $(PY) -m pytest -p no:cacheprovider -q \
		test_web_demo.py -k "feature_list or registration_ends or courier_welcome"

## Starts the daemon in the foreground on its defaults (Ctrl-C stops it); installs what is missing first,
## as the README promises (make install is the one that installs no test dependency).
run: deps
	$(RELEASE_BUILD) --product passkeyd
	exec $(RELEASE_SCRATCH)/release/passkeyd

bench: deps
	@scripts/bench.sh

## DocC archives of the two libraries (their catalogs: Sources/*/<Target>.docc), in docs-build/.
## Warnings fail the build, so a broken symbol link is caught here; then the articles' Swift
## examples are type-checked against the modules just built.
DOCC_TARGETS := PasskeyClient RelyingParty
docs:
	@mkdir -p docs-build
	@for target in $(DOCC_TARGETS); do \
		$(SWIFTPM) package --allow-writing-to-directory docs-build generate-documentation --target $$target \
			--output-path docs-build/$$target.doccarchive --warnings-as-errors || exit 1; \
	done
	SWIFT=$(SWIFT) scripts/check-docc-examples

## The libFuzzer targets with AddressSanitizer (docs/fuzzing.md), FUZZ_RUNS inputs each.
fuzz: deps
	FUZZ_RUNS=$(FUZZ_RUNS) SWIFT=$(SWIFT) scripts/fuzz.sh

clean:
	rm -rf .build $(RELEASE_SCRATCH) .build-fuzz .build-dist .build-plugins dist/out docs-build integrations/c/build integrations/ssh/build integrations/preload/build

## `make install` (docs/integrations.md): the executables, shell completions, man pages,
## systemd user units, the libfido2 adapter, the OpenSSH provider and the preload library under PREFIX (DESTDIR for packagers).
## It builds what it installs and nothing else: no test dependency, no service (scripts/build-needs.sh
## only says what is missing). CONFIG=debug installs the debug build instead (what `make test`'s install test uses).
PREFIX ?= $(HOME)/.local
DESTDIR ?=
CONFIG ?= release
BINDIR = $(PREFIX)/bin
SHAREDIR = $(PREFIX)/share
MAN1DIR = $(SHAREDIR)/man/man1
BASH_COMPLETIONS = $(SHAREDIR)/bash-completion/completions
ZSH_COMPLETIONS = $(SHAREDIR)/zsh/site-functions
FISH_COMPLETIONS = $(SHAREDIR)/fish/vendor_completions.d
# Searched by `systemctl --user` for ~/.local and /usr/local alike (systemd.unit(5)).
USER_UNITS = $(SHAREDIR)/systemd/user
# The WebExtension (integrations/browser/extension), loaded unpacked by Chromium or Firefox.
EXTENSION_DIR = $(SHAREDIR)/passkeyd/browser-extension
EXECUTABLES := passkeyd passkeyctl passkeydemo
UNITS := passkeyd.socket passkeyd.service passkeyd-standalone.service
# The release build is the static one in its own folder (RELEASE_BUILD above).
SCRATCH = $(if $(filter release,$(CONFIG)),$(RELEASE_SCRATCH),.build)
BUILD_CONFIG = $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS),-c $(CONFIG) --scratch-path $(SCRATCH))
SCRATCH_ENV = $(if $(filter release,$(CONFIG)),$(RELEASE_ENV))
PRODUCTS = $(SCRATCH)/$(CONFIG)
# Written by `make man` (swift-argument-parser's generate-manual plugin).
MAN_OUT = $(SCRATCH)/plugins/GenerateManual/outputs
MAN_STAMP = $(MAN_OUT)/.made-from-$(CONFIG)

## Under sudo, products already built by the user are installed as they are, so nothing
## under .build (or .venv) comes to belong to root.
install:
	@if [ -n "$${SUDO_USER:-}" ] && [ -x $(PRODUCTS)/passkeyctl ]; then \
	  echo "install: using the $(CONFIG) products $$SUDO_USER built"; \
	else \
	  scripts/build-needs.sh && \
	  $(BUILD_EXECUTABLES) && \
	  $(MAKE) --no-print-directory $(MAN_STAMP); \
	fi
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(BASH_COMPLETIONS) $(DESTDIR)$(ZSH_COMPLETIONS) \
	  $(DESTDIR)$(FISH_COMPLETIONS) $(DESTDIR)$(USER_UNITS)
	for p in $(EXECUTABLES); do \
	  install -m 755 $(PRODUCTS)/$$p $(DESTDIR)$(BINDIR)/$$p && \
	  $(PRODUCTS)/$$p --generate-completion-script bash > $(DESTDIR)$(BASH_COMPLETIONS)/$$p && \
	  $(PRODUCTS)/$$p --generate-completion-script zsh > $(DESTDIR)$(ZSH_COMPLETIONS)/_$$p && \
	  $(PRODUCTS)/$$p --generate-completion-script fish > $(DESTDIR)$(FISH_COMPLETIONS)/$$p.fish || exit 1; \
	done
	for p in $(EXECUTABLES); do install -m 644 $(MAN_OUT)/$$p/$$p.1 $(DESTDIR)$(MAN1DIR)/$$p.1 || exit 1; done
	install -m 644 dist/systemd/passkeyd.socket $(DESTDIR)$(USER_UNITS)/passkeyd.socket
	for u in passkeyd.service passkeyd-standalone.service; do \
	  sed 's|@BINDIR@|$(BINDIR)|' dist/systemd/$$u.in > $(DESTDIR)$(USER_UNITS)/$$u && chmod 644 $(DESTDIR)$(USER_UNITS)/$$u || exit 1; \
	done
	install -d $(DESTDIR)$(EXTENSION_DIR)
	install -m 644 integrations/browser/extension/* $(DESTDIR)$(EXTENSION_DIR)/
	$(MAKE) --no-print-directory -C integrations/c install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) --no-print-directory -C integrations/ssh install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) --no-print-directory -C integrations/preload install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	@echo "installed under $(DESTDIR)$(PREFIX); with systemd: systemctl --user daemon-reload && systemctl --user enable --now passkeyd.socket"

uninstall:
	for p in $(EXECUTABLES); do \
	  rm -f $(DESTDIR)$(BINDIR)/$$p $(DESTDIR)$(BASH_COMPLETIONS)/$$p $(DESTDIR)$(ZSH_COMPLETIONS)/_$$p \
	        $(DESTDIR)$(FISH_COMPLETIONS)/$$p.fish; \
	  rm -f $(DESTDIR)$(MAN1DIR)/$$p.1; \
	done
	for u in $(UNITS); do rm -f $(DESTDIR)$(USER_UNITS)/$$u; done
	rm -rf $(DESTDIR)$(EXTENSION_DIR)
	$(MAKE) --no-print-directory -C integrations/c uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) --no-print-directory -C integrations/ssh uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) --no-print-directory -C integrations/preload uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

## Man pages for the executables, from their own --help (swift-argument-parser's generate-manual
## tool, built with the same flags as the products, so building it never relinks them — its
## plugin would build every product without --static-swift-stdlib); remade only when an
## executable changed. Dated by the commit (SOURCE_DATE_EPOCH), not the day of the build, so
## two builds of one commit write the same pages.
man: $(MAN_STAMP)

MAN_DATE = $$(date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)} +%Y-%m-%d)

## The generator leaves a discussion's blank lines in the page, which mdoc warns about
## ("Empty input line"): each becomes the paragraph break it means (.Pp).
$(MAN_STAMP): $(addprefix $(PRODUCTS)/,$(EXECUTABLES))
	$(SCRATCH_ENV) $(SWIFTPM) build $(BUILD_CONFIG) --product generate-manual
	for p in $(EXECUTABLES); do \
	  mkdir -p $(MAN_OUT)/$$p && \
	  $(PRODUCTS)/generate-manual $(PRODUCTS)/$$p --date $(MAN_DATE) --output-directory $(MAN_OUT)/$$p || exit 1; \
	done
	sed -i 's/^$$/.Pp/' $(MAN_OUT)/*/*.1
	touch $@
