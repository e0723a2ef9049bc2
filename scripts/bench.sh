#!/usr/bin/env bash
# `make bench`: builds passkeybench and passkeyd in release mode, then runs the
# benchmark once. Not part of `make test`: speed is measured here, never in tests.
# Build output and progress go to stderr, the report to stdout.
# Extra arguments go to passkeybench (e.g. scripts/bench.sh --duration 1).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SWIFT="${SWIFT:-swift}"

"$SWIFT" build -c release --product passkeyd >&2
"$SWIFT" build -c release --product passkeybench >&2
bin="$("$SWIFT" build -c release --show-bin-path)"

# Seeded keystores (100 000 credentials take a while to make) are kept under .build/.
exec "$bin/passkeybench" --passkeyd "$bin/passkeyd" --cache-dir .build/bench-cache "$@"
