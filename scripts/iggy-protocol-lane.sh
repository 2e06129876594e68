#!/usr/bin/env bash
# The Iggy protocol lane: runs the tests of the sink's Iggy protocol code (adapters-iggy's integration tests) and the
# testkit's conformance suites against the real Iggy server named by IGGY_TCP_ADDRESS (host:port), and only those.
# Without IGGY_TCP_ADDRESS there is no server to run them against: it says so and exits 0 (the normal test run covers
# the same tests against the in-JVM broker). Extra arguments go to Maven.
#
# The consumer-group conformance suite runs last, in a Maven run of its own, and its auto-commit poll on a partition
# pending revocation runs last inside it: on a 0.8 server that poll can deadlock the server
# (docs/adr/0003-explicit-offset-consumer.md), which must not take the other suites down with it.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"

address="${IGGY_TCP_ADDRESS:-}"
if [[ -z "${address// /}" ]]; then
  echo "iggy-protocol-lane: no real Iggy server given; the lane runs with IGGY_TCP_ADDRESS=host:port"
  exit 0
fi

host="${address%:*}"
port="${address##*:}"
if [[ "${host}" == "${address}" || -z "${host}" || ! "${port}" =~ ^[0-9]+$ ]]; then
  echo "iggy-protocol-lane: IGGY_TCP_ADDRESS must be host:port, got '${address}'" >&2
  exit 2
fi
if ! timeout 10 bash -c "exec 3<>/dev/tcp/${host}/${port}" 2>/dev/null; then
  echo "iggy-protocol-lane: cannot reach the Iggy server at ${address} (IGGY_TCP_ADDRESS)" >&2
  exit 1
fi
echo "iggy-protocol-lane: Iggy protocol tests against the server at ${address}"

# Only the named integration tests: no unit tests (-Dtest matches none), other modules' ITs filtered out.
run_its() {
  mvn -B -ntp verify -pl testkit,adapters-iggy -am \
    -Dtest=NoUnitTestsInThisLane -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test="$1" -Dfailsafe.failIfNoSpecifiedTests=false "${@:2}"
}

run_its 'RawFrameConformanceIT,AdminConformanceIT,MessagesConformanceIT,IggyGroupOffsetsIT,IggyMessageSourceIT,IggyMessageSourceContractIT' "$@"
run_its 'ConsumerGroupsConformanceIT' "$@"

echo "iggy-protocol-lane: passed against ${address}"
