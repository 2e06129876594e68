#!/usr/bin/env bash
# Runs the benchmarks: every end-to-end scenario (real sink jar, in-JVM Iggy or IGGY_TCP_ADDRESS, a real MinIO)
# and, with --jmh, the micro-benchmarks. Figures print as they come and are appended, one JSON line per scenario,
# to bench-results/results.jsonl (gitignored). Needs the sink and bench jars:
#   mvn -B -q -DskipTests package
# Usage:
#   bash scripts/bench.sh             all e2e scenarios (under 10 minutes on 2 cores)
#   bash scripts/bench.sh --smoke     one 20,000-message run, seconds; what CI can run
#   bash scripts/bench.sh --profile   as the default, with a JFR recording of the first scenario's sink
#   bash scripts/bench.sh --jmh       the micro-benchmarks (about 5 minutes; add JMH options after --)
#   bash scripts/bench.sh --only NAME one scenario by name (see the list below)
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"

# BENCH_JAR / SINK_JAR override the jars (e.g. to bench another build of the sink).
bench_jar="${BENCH_JAR:-benchmarks/target/benchmarks.jar}"
sink_jar="${SINK_JAR:-bootstrap/target/iggy-s3-sink.jar}"
for jar in "${bench_jar}" "${sink_jar}"; do
  [[ -f "${jar}" ]] || { echo "bench.sh: ${jar} is missing; run: mvn -B -q -DskipTests package" >&2; exit 2; }
done
if [[ -z "${MINIO_BINARY:-}" && -z "${S3_TEST_ENDPOINT:-}" ]] && ! command -v minio >/dev/null \
    && [[ ! -x .tools/minio ]]; then
  MINIO_BINARY="$(bash scripts/ensure-minio.sh)"
  export MINIO_BINARY
fi
# The in-JVM broker keeps every message on the heap (1M x 1 KiB is about 1.1 GB).
bench_java=(java -Xmx4g -jar "${bench_jar}")
sink_flag=(--sink-jar "${sink_jar}")

mode="all"
only=""
profile=""
jmh_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) mode="smoke" ;;
    --profile) profile="--jfr" ;;
    --jmh) mode="jmh" ;;
    --only) only="$2"; shift ;;
    --) shift; jmh_args=("$@"); break ;;
    *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

case "${mode}" in
  smoke) exec "${bench_java[@]}" e2e --smoke "${sink_flag[@]}" ;;
  jmh) exec java -jar "${bench_jar}" jmh -prof gc -rf json -rff bench-results/jmh.json "${jmh_args[@]}" ;;
esac

# name | flags. Message counts are sized so the whole list stays under 10 minutes on 2 shared cores.
scenarios=(
  "1kib-8mib|--messages 1000000 --size 1KiB --partitions 8 --rotation size:8MiB ${profile}"
  "100b-1000rec|--messages 1000000 --size 100 --partitions 8 --rotation messages:1000"
  "64kib-8mib|--messages 16000 --size 64KiB --partitions 8 --rotation size:8MiB"
  "1kib-gzip|--messages 300000 --size 1KiB --partitions 8 --rotation size:8MiB --compression gzip"
  "1kib-zstd|--messages 300000 --size 1KiB --partitions 8 --rotation size:8MiB --compression zstd"
  "1kib-parquet|--messages 300000 --size 1KiB --partitions 8 --rotation size:8MiB --format parquet"
  "p64-budget16mib|--messages 300000 --size 1KiB --partitions 64 --rotation size:8MiB --max-buffered-bytes 16MiB"
)
mkdir -p bench-results
failed=0
start=$(date +%s)
for entry in "${scenarios[@]}"; do
  name="${entry%%|*}"
  flags="${entry#*|}"
  [[ -n "${only}" && "${only}" != "${name}" ]] && continue
  # shellcheck disable=SC2086 # flags are word lists on purpose
  "${bench_java[@]}" e2e "${sink_flag[@]}" --name "${name}" ${flags} || { echo "bench.sh: ${name} failed" >&2; failed=1; }
done
echo "bench.sh: done in $(( $(date +%s) - start )) s; results in bench-results/results.jsonl"
exit "${failed}"
