#!/usr/bin/env bash
# Make sure valgrind is available for the bench's instruction count (backend/devtools/bench/instructions.py,
# checked by tests/devtools/bench/test_bench_cli.py). Idempotent: does nothing when valgrind is on the
# PATH; installs Debian's `valgrind` package when it is missing and this shell may install packages.
# It never fails the build: without valgrind the bench says the count was skipped, and why.
set -uo pipefail
source "$(dirname "$0")/apt.sh"

if command -v valgrind >/dev/null 2>&1 && command -v vgdb >/dev/null 2>&1; then
  exit 0
fi
if apt_install valgrind valgrind "the bench will not count instructions"; then
  echo "ensure-valgrind: $(valgrind --version 2>/dev/null || echo installed)"
fi
exit 0
