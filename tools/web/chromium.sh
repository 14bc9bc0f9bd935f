#!/usr/bin/env bash
# Prints the path of a headless-capable Chromium for the browser tests (playwright-core drives it), installing
# Debian's `chromium` package first when none is there (as root, with apt-get). Idempotent: a present one is reused.
# CHROMIUM_PATH overrides the lookup.
set -euo pipefail

find_chromium() {
  if [[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]]; then
    echo "${CHROMIUM_PATH}"
    return 0
  fi
  command -v chromium || command -v chromium-browser || return 1
}

if path="$(find_chromium)"; then
  echo "${path}"
  exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
  echo "chromium is missing: run this script as root (it installs Debian's chromium package)" >&2
  exit 1
fi
echo "installing chromium (apt-get)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
find_chromium
