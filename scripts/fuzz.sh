#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets (Fuzz/, docs/fuzzing.md) with AddressSanitizer and
# runs each for FUZZ_RUNS inputs, one after another, from its seed corpus in Fuzz/Corpus/<target>.
# Fails on any crash, leak, timeout or out-of-memory; the input that did it is kept under
# .build-fuzz/artifacts/<target>/. New interesting inputs go to .build-fuzz/corpus/<target>,
# never into the committed seeds. Ends with each target's runs, coverage and speed.
#
#   scripts/fuzz.sh [target ...]          every target when none is named
#   FUZZ_RUNS=1000000                      inputs per target
#   FUZZ_MAX_TIME=3600                     seconds per target at most (a safety net; runs short of it are reported)
#   FUZZ_TIMEOUT=10                        seconds one input may take before it counts as a hang
#   FUZZ_NICE=15                           scheduling priority of the build and the runs
#   FUZZ_SEED=1                            libFuzzer's random seed; unset, a new one each run. The smoke
#                                          run in `make test` fixes it, so CI replays the inputs checked here
#   FUZZ_OUT=.build-fuzz                   where logs, found inputs and failing inputs go
#   FUZZ_BUILD_ONLY=1                      build the targets and stop
#   FUZZ_CONFIG=release                    the configuration the targets are built in
#   FUZZ_SCRATCH=.build-fuzz               the build folder. `make test`'s smoke run names the debug
#                                          tree its tests were built in (.build, FUZZ_CONFIG=debug): only
#                                          the five instrumented modules and the targets compile there
#                                          (and back, uninstrumented, at the next ordinary debug build)
#   RELEASE_SCRATCH=.build-release         the ordinary release build whose macro plugin the fuzz build loads
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
# The Swift runtime's crash reporter reads memory ASan would flag; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
SWIFT="${SWIFT:-swift}"
# SwiftPM in the same environment whoever started it (scripts/same-env says why).
SWIFTPM=("$PWD/scripts/same-env" "$SWIFT")
FUZZ_RUNS="${FUZZ_RUNS:-1000000}"
FUZZ_MAX_TIME="${FUZZ_MAX_TIME:-3600}"
FUZZ_TIMEOUT="${FUZZ_TIMEOUT:-10}"
FUZZ_NICE="${FUZZ_NICE:-15}"
seed=()
[ -z "${FUZZ_SEED:-}" ] || seed=(-seed="$FUZZ_SEED")
CONFIG="${FUZZ_CONFIG:-release}"
SCRATCH="${FUZZ_SCRATCH:-.build-fuzz}"
OUT="${FUZZ_OUT:-.build-fuzz}"
ALL_TARGETS=(FuzzCBORDecoder FuzzCTAPRequests FuzzCTAPHIDReassembler FuzzAuthenticator FuzzKeystore)
# Targets whose harness awaits actors: the detached task's own memory is freed just after the
# input returns, which libFuzzer's per-input leak check takes for a leak and then spends a
# LeakSanitizer pass on (about 3 inputs a second). For these, LeakSanitizer runs once at exit
# instead, over everything every input left behind, and still fails the run.
LEAK_CHECK_AT_EXIT=" FuzzAuthenticator FuzzKeystore "
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")

build_start=$SECONDS
# A folder that built its own macro plugin (the debug tree) keeps using it: loading another would
# change its manifest (the macro and test targets go) and so rebuild it. Any other folder loads
# one another build made instead of building swift-syntax again (Package.swift,
# PASSKEYD_MACRO_PLUGIN): RELEASE_MACRO_PLUGIN's when given, else the ordinary release build's
# (`make release-build`, the same flags), built there if it is not yet.
if [ -x "$SCRATCH/$CONFIG/PasskeydMacrosPlugin-tool" ]; then
  unset PASSKEYD_MACRO_PLUGIN
elif [ -n "${RELEASE_MACRO_PLUGIN:-}" ]; then
  export PASSKEYD_MACRO_PLUGIN="$RELEASE_MACRO_PLUGIN"
else
  RELEASE_SCRATCH="${RELEASE_SCRATCH:-.build-release}"
  nice -n "$FUZZ_NICE" "${SWIFTPM[@]}" build -c release --static-swift-stdlib --scratch-path "$RELEASE_SCRATCH" \
    --target PasskeydMacros >&2
  export PASSKEYD_MACRO_PLUGIN="$PWD/$RELEASE_SCRATCH/release/PasskeydMacrosPlugin-tool"
fi
[ -z "${PASSKEYD_MACRO_PLUGIN:-}" ] || [ -x "$PASSKEYD_MACRO_PLUGIN" ] ||
  { echo "fuzz: no macro plugin at $PASSKEYD_MACRO_PLUGIN" >&2; exit 1; }
for target in "${targets[@]}"; do
  PASSKEYD_FUZZ=1 nice -n "$FUZZ_NICE" "${SWIFTPM[@]}" build -c "$CONFIG" --scratch-path "$SCRATCH" --product "$target" >&2
done
bin="$(PASSKEYD_FUZZ=1 "${SWIFTPM[@]}" build -c "$CONFIG" --scratch-path "$SCRATCH" --show-bin-path)"
echo "fuzz: built ${#targets[@]} target(s) ($CONFIG, in $SCRATCH) in $((SECONDS - build_start)) s" >&2
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0

summary=()
status=0
for target in "${targets[@]}"; do
  work="$OUT/corpus/$target"
  artifacts="$OUT/artifacts/$target/"
  log="$OUT/logs/$target.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  echo "fuzz: $target, $FUZZ_RUNS runs (log: $log)" >&2
  detect_leaks=1
  [[ "$LEAK_CHECK_AT_EXIT" == *" $target "* ]] && detect_leaks=0
  start=$EPOCHREALTIME
  set +e
  nice -n "$FUZZ_NICE" "$bin/$target" \
    -runs="$FUZZ_RUNS" -detect_leaks="$detect_leaks" -max_total_time="$FUZZ_MAX_TIME" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "${seed[@]}" \
    "$work" "Fuzz/Corpus/$target" >"$log" 2>&1
  code=$?
  set -e
  seconds="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  # libFuzzer's own average is whole runs per whole second, 0 for a run under a second.
  speed="$(awk -v n="${runs:-0}" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", n / (b - a) }')"
  last="$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -1)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
  verdict=ok
  if [ "$code" -ne 0 ]; then
    verdict="FAILED (exit $code)"
    status=1
    grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*Fatal error|artifact_prefix|Test unit written)' "$log" >&2 || tail -40 "$log" >&2
  elif [ "${runs:-0}" -lt "$FUZZ_RUNS" ]; then
    verdict="stopped by FUZZ_MAX_TIME=${FUZZ_MAX_TIME}s"
  fi
  summary+=("$(printf '%-24s runs %10s  cov %6s  ft %7s  exec/s %6s  %5s s  %s' \
    "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${speed:-?}" "$seconds" "$verdict")")
done

printf '%s\n' "${summary[@]}"
exit "$status"
