#!/usr/bin/env bash
# Make sure Chromium is available for the browser end-to-end test (tests/web/test_browser_e2e.py).
# Idempotent: does nothing when /usr/bin/chromium exists; installs Debian's `chromium` package with
# apt-get when it is missing and this shell may install packages. Never runs `playwright install`
# (the test drives the system Chromium through Playwright's executable_path).
# It never fails the build: without Chromium the test skips and says why.
set -uo pipefail
source "$(dirname "$0")/apt.sh"

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if apt_install browser chromium "the browser test will skip"; then
  echo "ensure-browser: $("$CHROMIUM" --version 2>/dev/null || echo installed)"
fi
exit 0
