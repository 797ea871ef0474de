#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's browser tests (playwright-core drives it; no browser is downloaded).
# Idempotent: returns at once when /usr/bin/chromium exists. Needs root (apt-get) or sudo.
set -euo pipefail
log() { printf '[install-chromium] %s\n' "$*" >&2; }
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
log "installing Debian's chromium"
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
  { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
[ -x /usr/bin/chromium ] || { log "chromium is still missing after apt-get install"; exit 1; }
log "installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
