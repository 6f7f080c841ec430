#!/usr/bin/env bash
# Installs Debian's chromium package when /usr/bin/chromium is missing (the browser tests
# drive it with Playwright). Prints the browser's path; exits non-zero when it cannot.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >&2
  $SUDO apt-get install -y -q chromium >&2
fi
echo /usr/bin/chromium
