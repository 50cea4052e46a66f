#!/usr/bin/env bash
# Makes sure Debian's Chromium is there for the browser tests: installs it when it is missing
# and this machine lets us (root, or password-less sudo); otherwise says how, and the browser
# suite fails with the same message.
set -euo pipefail

CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] && exit 0

install() {
  "$@" apt-get install -y --no-install-recommends chromium >/dev/null \
    || { "$@" apt-get update >/dev/null && "$@" apt-get install -y --no-install-recommends chromium >/dev/null; }
}

if command -v apt-get >/dev/null 2>&1; then
  echo "browser: installing Debian's chromium for the browser tests"
  if [ "$(id -u)" = 0 ]; then
    install env DEBIAN_FRONTEND=noninteractive && exit 0
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    install sudo -n env DEBIAN_FRONTEND=noninteractive && exit 0
  fi
fi
echo "browser: Chromium is missing at $CHROMIUM and could not be installed here;" >&2
echo "browser: run 'apt-get install -y chromium' (or set CHROMIUM_PATH); the browser tests will fail until then." >&2
