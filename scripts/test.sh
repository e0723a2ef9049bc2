#!/usr/bin/env bash
# `make test`: every test the project has, each build configuration made once, in stages. What
# runs beside what, on two cores:
#
#   foreground (the tests' own CPU)          background, niced to 19 (only what the tests leave idle)
#   deps, architecture, format-lint          debian-root: the clean Debian 12 root for the package check
#   macro-plugin (debug: swift-syntax)       release: the static release build + man pages + C libraries
#   build-tests (debug), swift-test            (it loads the debug build's macro plugin)
#   interop-build, interop-suites
#     + device-suite (its own daemons)
#   dist, dist-check (the chroot)             release-smoke; fuzz (not niced): its build in the
#                                               debug tree, now idle, and a smoke run
#
# A niced build takes CPU only when the tests wait (browsers, sleeps, the network), and every
# build folder has its own lock (.build, .build-release), so nothing waits for another's lock.
# `nice` alone does not do it: a background stage is a session of its own
# (setsid), which Linux schedules as an autogroup of its own, shared fairly with the tests'
# whatever its processes' nice values (sched(7), "The autogroup feature"), and SwiftPM starts
# its compilers at nice 0 anyway. So a niced stage sets its autogroup's nice value, which every
# process it starts shares. The release build loads the debug build's macro plugin
# (RELEASE_MACRO_PLUGIN; Package.swift, PASSKEYD_MACRO_PLUGIN): swift-syntax is built once.
# Each background stage logs to .build-stages/NAME.log, printed when it is awaited. The table of
# stage times ends the run, failed or not.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SWIFT="${SWIFT:-swift}"
# SwiftPM in the same environment whoever started it (scripts/same-env says why).
SWIFTPM=("$PWD/scripts/same-env" "$SWIFT")
PY="${PY:-$PWD/.venv/bin/python}"
LOGS=.build-stages
rm -rf "$LOGS"
mkdir -p "$LOGS/times"
T0=$EPOCHREALTIME
failed=()
declare -A pids=()

elapsed() { awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }

# stage NAME CMD...: runs CMD, records when it started, how long it took and how it ended.
# The CPU time is what the stage's processes used (user + system, bash's `times` for the
# children of a subshell of its own, so a background stage reaped meanwhile is not counted):
# on two cores, the sum over the stages is what bounds the whole run, not any one wall clock.
stage() {
  local name="$1" start rc cpu
  shift
  start=$(elapsed)
  echo "== stage $name (at ${start} s)"
  ( "$@"
    rc=$?
    times >"$LOGS/times/$name.cpu" # not in a pipe: a pipe's subshell counts from zero
    exit $rc )
  rc=$?
  # `times`' second line: the children's user and system time, as 1m2.345s each.
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); cpu += t[1] * 60 + t[2] }
                       printf "%.0f", cpu }' "$LOGS/times/$name.cpu" 2>/dev/null)
  rm -f "$LOGS/times/$name.cpu"
  printf '%s %s %s %s\n' "$start" "$(($(elapsed) - start))" "$rc" "${cpu:--}" >"$LOGS/times/$name"
  return $rc
}

# background NAME CMD...: the same in its own session (so a failure elsewhere can stop it whole).
# With NICE=N, at that nice value, its autogroup's included (see above).
background() {
  local name="$1" yield="${NICE:-}"
  shift
  if [ -n "$yield" ]; then set -- nice -n "$yield" "$@"; fi
  setsid bash -c "$(declare -f elapsed stage); T0=$T0 LOGS=$LOGS
    [ -z '$yield' ] || echo '$yield' >/proc/self/autogroup 2>/dev/null || true
    stage \"\$@\"" _ "$name" "$@" \
    >"$LOGS/$name.log" 2>&1 &
  pids[$name]=$!
  echo "== stage $name started in the background (log: $LOGS/$name.log)"
}

# await NAME: waits for a background stage, prints its log, fails when it failed.
await() {
  local name="$1" rc
  wait "${pids[$name]}"
  rc=$?
  unset "pids[$name]"
  echo "== stage $name (background) ended rc=$rc; its log:"
  cat "$LOGS/$name.log"
  [ "$rc" -eq 0 ] || { failed+=("$name"); return 1; }
}

table() {
  echo
  echo "Stage times (make test; seconds from the start, wall clock):"
  printf '  %-16s %7s %9s %8s  %s\n' stage start duration "cpu s" result
  local name start seconds rc cpu total_cpu=0
  for name in $(cd "$LOGS/times" && for f in *; do [[ $f == *.* ]] || echo "$(cut -d' ' -f1 "$f") $f"; done | sort -n | cut -d' ' -f2); do
    read -r start seconds rc cpu <"$LOGS/times/$name"
    [ "$cpu" = - ] || total_cpu=$((total_cpu + cpu))
    printf '  %-16s %7s %9s %8s  %s\n' "$name" "$start" "$seconds" "$cpu" \
      "$([ "$rc" = 0 ] && echo ok || echo "FAILED ($rc)")"
  done
  printf '  %-16s %7s %9s %8s\n' total 0 "$(elapsed)" "$total_cpu"
}

finish() {
  local rc=$?
  for name in "${!pids[@]}"; do
    kill -TERM -- "-${pids[$name]}" 2>/dev/null &&
      echo "== stage $name stopped (an earlier stage failed); its log: $LOGS/$name.log"
  done
  table
  if [ ${#failed[@]} -gt 0 ]; then
    echo "make test: FAILED in ${failed[*]}"
    exit 1
  fi
  exit "$rc"
}
trap finish EXIT

# run NAME CMD...: a foreground stage; the run stops at its failure.
run() { stage "$@" || { failed+=("$1"); exit 1; }; }

run deps make --no-print-directory deps
NICE=19 background debian-root scripts/debian-root.sh
run architecture make --no-print-directory architecture
run format-lint make --no-print-directory format-lint
# The macro plugin first (swift-syntax, in debug): the release build loads it, from a
# copy named after its sources and the compiler. SwiftPM does not track a loaded plugin as an
# input: a new name when they change is what rebuilds what the old one expanded (the flags
# changed), and the copy is never relinked under a compiler that runs it (build-tests).
# `--target PasskeydMacrosPlugin` only compiles the macro module; building the target that
# declares the macros is what links the plugin executable (PasskeydMacrosPlugin-tool).
run macro-plugin "${SWIFTPM[@]}" build --target PasskeydMacros
plugin_id=$({ "$SWIFT" --version 2>&1; cat Sources/PasskeydMacrosPlugin/*.swift; } | sha256sum | cut -c1-16)
export RELEASE_MACRO_PLUGIN="$PWD/.build-plugins/PasskeydMacrosPlugin-$plugin_id"
if [ ! -x "$RELEASE_MACRO_PLUGIN" ]; then
  mkdir -p .build-plugins &&
    install -m 755 "$("${SWIFTPM[@]}" build --show-bin-path)/PasskeydMacrosPlugin-tool" "$RELEASE_MACRO_PLUGIN.new" &&
    mv "$RELEASE_MACRO_PLUGIN.new" "$RELEASE_MACRO_PLUGIN" ||
    { echo "make test: no macro plugin to hand to the release build"; failed+=(macro-plugin); exit 1; }
fi
NICE=19 background release make --no-print-directory release
run build-tests "${SWIFTPM[@]}" build --build-tests
run swift-test "$SWIFT" test --skip-build
run interop-build make --no-print-directory -C Tests/Interop PY="$PY" SWIFT="$SWIFT" daemon program
background device-suite make --no-print-directory -C Tests/Interop PY="$PY" SWIFT="$SWIFT" device-suite
run interop-suites make --no-print-directory -C Tests/Interop PY="$PY" SWIFT="$SWIFT" suites
await device-suite || exit 1
# The fuzz smoke in the debug tree, now that no test builds there: only the five instrumented
# modules and the targets compile (a folder of its own builds swift-crypto and GRDB a third
# time: 1 129 CPU s in a make test, against 300 here). Optimised code is release-smoke's to check. At the tests' own
# priority: a niced smoke run would stop at its time limit short of its runs.
background fuzz env FUZZ_NICE=0 FUZZ_CONFIG=debug FUZZ_SCRATCH=.build FUZZ_RUNS="${FUZZ_SMOKE_RUNS:-20000}" \
  FUZZ_MAX_TIME="${FUZZ_SMOKE_MAX_TIME:-60}" FUZZ_SEED="${FUZZ_SMOKE_SEED:-1}" SWIFT="$SWIFT" scripts/fuzz.sh
await release || exit 1
background release-smoke make --no-print-directory -C Tests/Interop PY="$PY" SWIFT="$SWIFT" RELEASE_BUILT=1 release-smoke
run dist make --no-print-directory RELEASE_BUILT=1 dist
await debian-root || exit 1
run dist-check make --no-print-directory -C Tests/Interop PY="$PY" SWIFT="$SWIFT" dist-check
await release-smoke || exit 1
await fuzz || exit 1
