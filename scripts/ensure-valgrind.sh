#!/usr/bin/env bash
# Make sure valgrind is available for the bench's instruction count (backend/devtools/bench/instructions.py,
# checked by tests/devtools/bench/test_bench_cli.py). Idempotent: does nothing when valgrind is on the
# PATH; installs Debian's `valgrind` package with apt-get when it is missing and this shell may install
# packages. It never fails the build: without valgrind the bench says the count was skipped, and why.
set -uo pipefail

if command -v valgrind >/dev/null 2>&1 && command -v callgrind_control >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-valgrind: valgrind missing and apt-get unavailable; the bench will not count instructions"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "ensure-valgrind: valgrind missing and not root (install it: apt-get install valgrind); the bench will not count instructions"
    exit 0
  fi
else
  SUDO=""
fi

echo "ensure-valgrind: installing valgrind (Debian package 'valgrind')"
if $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null; then
  echo "ensure-valgrind: $(valgrind --version 2>/dev/null || echo installed)"
else
  echo "ensure-valgrind: could not install valgrind; the bench will not count instructions"
fi
exit 0
