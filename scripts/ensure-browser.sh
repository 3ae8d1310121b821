#!/usr/bin/env bash
# Make sure Chromium is available for the browser end-to-end test (tests/web/test_browser_e2e.py).
# Idempotent: does nothing when /usr/bin/chromium exists; installs Debian's `chromium` package with
# apt-get when it is missing and this shell may install packages. Never runs `playwright install`
# (the test drives the system Chromium through Playwright's executable_path).
# It never fails the build: without Chromium the test skips and says why.
set -uo pipefail

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-browser: $CHROMIUM missing and apt-get unavailable; the browser test will skip"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "ensure-browser: $CHROMIUM missing and not root (install it: apt-get install chromium); the browser test will skip"
    exit 0
  fi
else
  SUDO=""
fi

echo "ensure-browser: installing Chromium (Debian package 'chromium')"
if $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null; then
  echo "ensure-browser: $("$CHROMIUM" --version 2>/dev/null || echo installed)"
else
  echo "ensure-browser: could not install Chromium; the browser test will skip"
fi
exit 0
