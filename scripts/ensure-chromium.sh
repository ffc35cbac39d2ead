#!/usr/bin/env bash
# Make sure headless Chromium (Debian's `chromium` package) is at /usr/bin/chromium: the HTML
# report tests open the pages in it.
#
#   bash scripts/ensure-chromium.sh        # prints the binary's path
#
# Nothing to do when /usr/bin/chromium exists. Safe to call concurrently (flock: `make counterparts`
# installs it in the background while a test may ask for it too) and repeatedly (idempotent).
set -euo pipefail

BIN=/usr/bin/chromium
say() { echo "ensure-chromium: $*" >&2; }

if [[ -x "${BIN}" ]]; then
  echo "${BIN}"
  exit 0
fi
exec 9>/tmp/drivable-chromium.lock
flock -w 1500 9 || { say "lock busy"; exit 2; }
if [[ -x "${BIN}" ]]; then  # installed by whoever held the lock
  echo "${BIN}"
  exit 0
fi
if [[ "$(id -u)" != "0" ]]; then
  say "Chromium is not installed and we are not root; install Debian's 'chromium' package"
  exit 2
fi
say "installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >&2
if [[ ! -x "${BIN}" ]]; then
  say "chromium installed but ${BIN} is missing"
  exit 2
fi
echo "${BIN}"
