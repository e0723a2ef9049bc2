#!/usr/bin/env bash
# `make bench`: builds passkeybench and passkeyd in release mode, then runs the
# benchmark once. Not part of `make test`: speed is measured here, never in tests.
# Build output and progress go to stderr, the report to stdout.
# Extra arguments go to passkeybench (e.g. scripts/bench.sh --duration 1).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SWIFT="${SWIFT:-swift}"
# SwiftPM in the same environment whoever started it (scripts/same-env says why).
SWIFTPM=("$PWD/scripts/same-env" "$SWIFT")

"${SWIFTPM[@]}" build -c release --product passkeyd >&2
"${SWIFTPM[@]}" build -c release --product passkeybench >&2
# The browser extension figure goes through `passkeyctl browser host` (scripts/browser-extension-bench.py).
"${SWIFTPM[@]}" build -c release --product passkeyctl >&2
bin="$("${SWIFTPM[@]}" build -c release --show-bin-path)"

# The libfido2 client (scripts/libfido2-bench.c) against the shipped socket adapter; without
# libfido2-dev the report says the figure was skipped.
libfido2=()
if pkg-config --exists libfido2 2>/dev/null && make -C integrations/c >&2; then
  mkdir -p .build/bench-tools
  gcc -O2 -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -o .build/bench-tools/libfido2-bench scripts/libfido2-bench.c \
    $(PKG_CONFIG_PATH="$PWD/integrations/c/build" pkg-config --cflags --libs passkeyd-libfido2) >&2 \
    && libfido2=(--libfido2-bench .build/bench-tools/libfido2-bench)
fi

# Seeded keystores (100 000 credentials take a while to make) are kept under .build/.
"$bin/passkeybench" --passkeyd "$bin/passkeyd" --cache-dir .build/bench-cache "${libfido2[@]}" "$@"

# The web developer's figures (issue 41), on the same release binaries in the same run:
# passkeyd.testing's add_credential rate over the socket, and a Playwright test's fixture ready
# (daemon + browser + extension) with one sign-in, beside the same on Chromium's own virtual
# authenticator (the ratio's target: ≤ 1.5×). Skipped with a sentence where Playwright or
# Chromium is missing.
py=.venv/bin/python
echo
echo "## Test suites (passkeyd.testing, Playwright)"
PASSKEYD_BIN="$bin/passkeyd" "$py" scripts/python-testing-bench.py -n 500 || echo "add_credential: skipped (exit $?)"
"$py" scripts/web-fixture-bench.py --rounds 5 --passkeyd "$bin/passkeyd" --passkeyctl "$bin/passkeyctl" \
  | tail -n 1 || echo "web fixture: skipped (exit $?)"
