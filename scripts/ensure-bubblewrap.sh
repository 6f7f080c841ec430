#!/usr/bin/env bash
# Installs Debian's bubblewrap package when `bwrap` is missing (every bot runs inside it: see
# docs/sandbox.md). Prints the program's path; exits non-zero when it cannot install it.
set -euo pipefail
BWRAP="$(command -v bwrap || true)"
if [ -z "$BWRAP" ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >&2
  $SUDO apt-get install -y -q bubblewrap >&2
  BWRAP="$(command -v bwrap)"
fi
echo "$BWRAP"
