#!/usr/bin/env bash
# Prints the path of a MinIO server binary, installing one under <repo>/.tools when none is available.
#
# Order: `minio` on PATH, then <repo>/.tools/minio (gitignored), else `go install` of the pinned version into
# <repo>/.tools. The pin is a Go pseudo-version of github.com/minio/minio: MinIO no longer publishes release
# binaries for every platform, and a source build needs only a Go toolchain (about 6 minutes on 2 cores).
#
# Usage: MINIO_BINARY="$(scripts/ensure-minio.sh)"; export MINIO_BINARY
# Diagnostics go to stderr so that stdout is only the path.
set -euo pipefail

MINIO_MODULE="github.com/minio/minio"
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${repo_root}/.tools"

if command -v minio >/dev/null 2>&1; then
  command -v minio
  exit 0
fi

if [[ -x "${tools_dir}/minio" ]]; then
  echo "${tools_dir}/minio"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "ensure-minio: no 'minio' on PATH, no ${tools_dir}/minio, and no Go toolchain to build one." >&2
  echo "ensure-minio: install Go (https://go.dev/dl/) or put a MinIO server binary on PATH." >&2
  exit 1
fi

mkdir -p "${tools_dir}"
echo "ensure-minio: building ${MINIO_MODULE}@${MINIO_VERSION} into ${tools_dir} (takes several minutes)..." >&2
start=$(date +%s)
GOBIN="${tools_dir}" go install "${MINIO_MODULE}@${MINIO_VERSION}" >&2
echo "ensure-minio: built in $(( $(date +%s) - start )) s" >&2

if [[ ! -x "${tools_dir}/minio" ]]; then
  echo "ensure-minio: go install finished but ${tools_dir}/minio is missing" >&2
  exit 1
fi
echo "${tools_dir}/minio"
