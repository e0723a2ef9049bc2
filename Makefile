# passkeyd — a software FIDO2 authenticator. `make run` and `make test` do everything.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
VENV := .venv
PY := $(CURDIR)/$(VENV)/bin/python

.PHONY: deps build release test test-unit unit interop architecture run bench clean

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Every test the project has: the Swift suites, then the interop suites against a real daemon.
test: deps architecture
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@if [ -f Tests/Interop/Makefile ]; then $(MAKE) -C Tests/Interop PY=$(PY) SWIFT=$(SWIFT) all; fi

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

clean:
	rm -rf .build
