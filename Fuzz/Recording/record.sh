#!/usr/bin/env bash
# Rebuilds the seed corpora (Fuzz/Corpus/) from fresh interop traffic: runs the python-fido2
# interop suites against a real passkeyd with record_traffic.py watching every socket, then
# make_corpus.py. Needs `make deps` and a debug build of passkeyd (swift build --product passkeyd).
set -euo pipefail
cd "$(dirname "$0")/../.."
# FUZZ_RECORD keeps the recording in a directory of your choice; by default it is temporary.
if [ -n "${FUZZ_RECORD:-}" ]; then
  record="$FUZZ_RECORD"
else
  record="$(mktemp -d /tmp/passkeyd-fuzz-record-XXXXXX)"
  trap 'rm -rf "$record"' EXIT
fi
export FUZZ_RECORD="$record"
export PASSKEYD_BIN="$PWD/.build/debug/passkeyd"
(cd Tests/Interop && PYTHONPATH="$PWD:$PWD/../../Fuzz/Recording" ../../.venv/bin/python -m pytest \
  -p no:cacheprovider -p record_traffic -q test_python_fido2.py test_clientpin.py test_credman.py test_faults.py)
.venv/bin/python Fuzz/Recording/make_corpus.py "$record"
