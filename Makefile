# passkeyd — a software FIDO2 authenticator. `make run` and `make test` do everything.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
VENV := .venv
PY := $(CURDIR)/$(VENV)/bin/python
# Inputs per fuzz target: `make fuzz`, and the smoke run at the end of `make test`, which also
# stops each target after FUZZ_SMOKE_MAX_TIME seconds (the keystore target is the slow one).
FUZZ_RUNS ?= 1000000
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SMOKE_MAX_TIME ?= 60

.PHONY: deps build release test test-unit unit interop architecture run bench fuzz clean

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Every test the project has: the Swift suites, the interop suites against a real daemon, a fuzz smoke run.
test: deps architecture
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@if [ -f Tests/Interop/Makefile ]; then $(MAKE) -C Tests/Interop PY=$(PY) SWIFT=$(SWIFT) all; fi
	FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) FUZZ_MAX_TIME=$(FUZZ_SMOKE_MAX_TIME) SWIFT=$(SWIFT) scripts/fuzz.sh

## The module map: imports against Package.swift and docs/architecture.md, and the check's own tests.
architecture: deps
	scripts/check-architecture
	$(PY) -m pytest -p no:cacheprovider -q Tests/Architecture

## The Swift suites that start no passkeyd or passkeyctl process: everything but PasskeydTests
## and PasskeyctlTests, without the interop suites and the architecture check.
UNIT_SKIP := ^(PasskeydTests|PasskeyctlTests)\.
test-unit: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(UNIT_SKIP)'

## The former name of test-unit.
unit: test-unit

interop: deps
	$(MAKE) -C Tests/Interop PY=$(PY) SWIFT=$(SWIFT) all

## Starts the daemon in the foreground on its defaults (Ctrl-C stops it).
run: deps
	$(SWIFT) build -c release --product passkeyd
	exec .build/release/passkeyd

bench: deps
	@scripts/bench.sh

## The libFuzzer targets with AddressSanitizer (docs/fuzzing.md), FUZZ_RUNS inputs each.
fuzz: deps
	FUZZ_RUNS=$(FUZZ_RUNS) SWIFT=$(SWIFT) scripts/fuzz.sh

clean:
	rm -rf .build .build-fuzz
