#!/usr/bin/env bash
# Makes sure systemd-analyze is installed, for the systemd unit's tests (DeployFilesTest: `systemd-analyze security`
# rates the unit's sandbox, `systemd-analyze verify` loads it). Installs Debian's systemd package with apt-get when it
# is missing (needs root, as on CI; nothing is started: the tests only analyse the unit file); prints nothing else on
# success. SYSTEMD_ANALYZE, when set, names a binary to use instead and nothing is installed.
set -euo pipefail

analyze="${SYSTEMD_ANALYZE:-/usr/bin/systemd-analyze}"

if [[ -x "${analyze}" ]]; then
  exit 0
fi
if [[ -n "${SYSTEMD_ANALYZE:-}" ]]; then
  echo "ensure-systemd.sh: SYSTEMD_ANALYZE=${analyze} is not executable" >&2
  exit 1
fi
if [[ "$(id -u)" != "0" ]]; then
  echo "ensure-systemd.sh: ${analyze} is missing; install it as root: apt-get install -y systemd" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-systemd.sh: no apt-get here; install systemd (systemd-analyze, version 250 or later) and set" \
       "SYSTEMD_ANALYZE" >&2
  exit 1
fi

echo "ensure-systemd.sh: installing systemd (for systemd-analyze) with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends systemd >&2

if [[ ! -x "${analyze}" ]]; then
  echo "ensure-systemd.sh: ${analyze} still missing after apt-get install" >&2
  exit 1
fi
