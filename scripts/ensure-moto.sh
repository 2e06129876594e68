#!/usr/bin/env bash
# Prints the path of moto's server (`moto_server`), the AWS service emulator the Glue catalog tests run against,
# installing it when missing: PyPI's `moto[server]` at a pinned version into a virtualenv under <repo>/.tools/moto
# (gitignored). Needs python3 with its venv module; nothing is installed outside the repository.
#
# Order: MOTO_SERVER when set, then <repo>/.tools/moto/bin/moto_server, else pip install.
# Usage: MOTO_SERVER="$(scripts/ensure-moto.sh)"; export MOTO_SERVER
# Diagnostics go to stderr so that stdout is only the path.
set -euo pipefail

MOTO_VERSION="5.2.6"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/.tools/moto"

if [[ -n "${MOTO_SERVER:-}" && -x "${MOTO_SERVER}" ]]; then
  echo "${MOTO_SERVER}"
  exit 0
fi

if [[ -x "${venv}/bin/moto_server" ]]; then
  echo "${venv}/bin/moto_server"
  exit 0
fi

if ! command -v python3 >/dev/null 2>&1; then
  echo "ensure-moto: no python3 to install moto's server into ${venv}; install Python 3 (with venv)." >&2
  exit 1
fi

if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  # Debian ships the venv module apart from python3; as root, install it like the other ensure-*.sh scripts do.
  echo "ensure-moto: python3 has no venv module; installing Debian's python3-venv..." >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
fi

mkdir -p "${repo_root}/.tools"
echo "ensure-moto: installing moto[server]==${MOTO_VERSION} from PyPI into ${venv}..." >&2
python3 -m venv "${venv}" >&2
"${venv}/bin/pip" install --quiet --disable-pip-version-check "moto[server]==${MOTO_VERSION}" >&2

if [[ ! -x "${venv}/bin/moto_server" ]]; then
  echo "ensure-moto: pip finished but ${venv}/bin/moto_server is missing" >&2
  exit 1
fi
echo "${venv}/bin/moto_server"
