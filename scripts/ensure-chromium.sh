#!/usr/bin/env bash
# Makes sure Debian's chromium and chromedriver are installed, for the status page's browser test (StatusPageIT).
# Installs them with apt-get when either is missing (needs root, as on CI); prints nothing else on success.
# CHROMIUM_BINARY / CHROMEDRIVER_BINARY, when set, name binaries to use instead and nothing is installed.
set -euo pipefail

chromium="${CHROMIUM_BINARY:-/usr/bin/chromium}"
chromedriver="${CHROMEDRIVER_BINARY:-/usr/bin/chromedriver}"

if [[ -x "${chromium}" && -x "${chromedriver}" ]]; then
  exit 0
fi
if [[ -n "${CHROMIUM_BINARY:-}${CHROMEDRIVER_BINARY:-}" ]]; then
  echo "ensure-chromium.sh: CHROMIUM_BINARY=${chromium} or CHROMEDRIVER_BINARY=${chromedriver} is not executable" >&2
  exit 1
fi
if [[ "$(id -u)" != "0" ]]; then
  echo "ensure-chromium.sh: ${chromium} or ${chromedriver} is missing; install them as root:" \
       "apt-get install -y chromium chromium-driver" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium.sh: no apt-get here; install Chromium and its chromedriver and set CHROMIUM_BINARY and" \
       "CHROMEDRIVER_BINARY" >&2
  exit 1
fi

echo "ensure-chromium.sh: installing chromium and chromium-driver with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq chromium chromium-driver >&2

for binary in "${chromium}" "${chromedriver}"; do
  if [[ ! -x "${binary}" ]]; then
    echo "ensure-chromium.sh: ${binary} still missing after apt-get install" >&2
    exit 1
  fi
done
