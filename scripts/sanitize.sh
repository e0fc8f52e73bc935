#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer, in its own scratch path.
#
#   scripts/sanitize.sh address [swift test args...]   # ASan + LeakSanitizer (.build-asan)
#   scripts/sanitize.sh thread  [swift test args...]   # TSan (.build-tsan)
#
# Release configuration (optimized, with testable imports): under a sanitizer the debug scan engine
# is so slow that it holds the test process's cooperative pool and the integration tests' deadlines
# pass (RELIABILITY.md, Sanitizers). Set SANITIZE_CONFIGURATION=debug to run the debug build instead
# (scratch path .build-tsan-debug / .build-asan-debug).
#
# Suppressions: scripts/sanitizers/lsan.supp (third-party allocations held at exit) and
# scripts/sanitizers/tsan.supp (third-party frames in reports TSan cannot judge on Linux). The
# environment is inherited by the bookscan processes the CLI tests start.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/sanitize.sh address|thread [swift test args...]}
shift
configuration=${SANITIZE_CONFIGURATION:-release}
case "$kind" in
  address) scratch=.build-asan ;;
  thread) scratch=.build-tsan ;;
  *) echo "sanitize.sh: unknown sanitizer '$kind' (address or thread)" >&2; exit 64 ;;
esac
# Release builds need -enable-testing for the suite's two `@testable import`s.
case "$configuration" in
  release) flags=(-c release -Xswiftc -enable-testing) ;;
  debug) flags=(-c debug); scratch="$scratch-debug" ;;
  *) echo "sanitize.sh: SANITIZE_CONFIGURATION must be release or debug, not '$configuration'" >&2; exit 64 ;;
esac
export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export TSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
exec swift test "${flags[@]}" --sanitize="$kind" --scratch-path "$scratch" "$@"
