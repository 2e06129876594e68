#!/usr/bin/env bash
# Runs the benchmarks: every end-to-end scenario (real sink jar, in-JVM Iggy or IGGY_TCP_ADDRESS, a real MinIO)
# and, with --jmh, the micro-benchmarks. Figures print as they come and are appended, one JSON line per scenario,
# to bench-results/results.jsonl (gitignored). Needs the sink and bench jars:
#   mvn -B -q -DskipTests package
# Usage:
#   bash scripts/bench.sh             all e2e scenarios (under 10 minutes on 2 cores)
#   bash scripts/bench.sh --smoke     one 20,000-message run, seconds; what CI can run
#   bash scripts/bench.sh --profile   as the default, with a JFR recording of the first scenario's sink
#   bash scripts/bench.sh --jmh       the micro-benchmarks (about 15 minutes, CodecBench has 60 cases; add JMH
#                                     options after --, e.g. -- CodecBench -p format=json_lines -p payloadSize=1024)
#   bash scripts/bench.sh --only NAME scenarios by name or glob (see the list below), e.g. --only 'scale-*'
#   bash scripts/bench.sh --only claims [--pairs N]
#                                     what claims cost: 100b-1000rec and 1kib-8mib, each with claims on and forced off
#                                     (the same jar; its store then ignores conditional writes), interleaved, N pairs
#                                     (default 2), no raw-PUT baseline; prints per scenario one line
#                                     "claims cost <scenario>: records/s ratio R, cpu ratio C, requests per file Q"
#                                     and, for the runs under key_layout = "first_offset" (ADR 0019), one line
#                                     "claims cost <scenario> (first_offset): ..." against the same runs off
#   bash scripts/bench.sh --only self-audit [--pairs N]
#                                     what the self-audit costs at its default budget (600 requests/min): 3M x 100 B
#                                     in 1,000-record files (long enough for several 10 s rounds, 3,000 objects to read
#                                     back) with --self-audit 600 and 0, interleaved, N pairs (default 2), no baseline;
#                                     prints "self-audit cost audit-100b: its thread X% of the sink's CPU, Y% of the
#                                     store's requests; records/s ratio R, cpu ratio C"
#   bash scripts/bench.sh --only table-self-audit [--pairs N]
#                                     the same for the Iceberg table sink (JDBC catalog): 12M x 100 B, a commit a second
#                                     (about 8 data files a second, more than the budget reads back), its self-audit at
#                                     600 and 0, interleaved, N pairs (default 2); prints "table self-audit cost 100B:
#                                     records/s ratio R, cpu ratio C" and the audit thread's share of the sink's CPU
#   bash scripts/bench.sh --only NAME --jar-b JAR [--pairs N]
#                                     the chosen scenarios with the sink jar and with JAR (another build), interleaved,
#                                     each pair's order flipped, N pairs (default 2), no raw-PUT baseline; the results
#                                     of JAR carry the name NAME@b
#   bash scripts/bench.sh --only NAME --jar-b JAR --archive [--pairs N]
#                                     the same, each jar with a class-data archive of its own, as the launcher records
#                                     and uses one by default (Java 17-24): one unmeasured run of the first chosen
#                                     scenario per jar records it (bench-results/archives/, kept per jar checksum)
#   bash scripts/bench.sh --tables    the Iceberg table sink beside the object sink (benchmarks.jar tables: 100 B and
#                                     1 KiB, JDBC and REST catalogs, freshness; add its options after --, e.g.
#                                     -- --messages 100k --rounds 1); 5M x 100 B and 1M x 1 KiB by default, about 12
#                                     minutes
# Every scenario prints records/s, MB/s, the ratio to a raw-PUT baseline of the same objects in the same run, the
# sink's CPU time per record (user+system from /proc/<pid>/stat) and its peak RSS; at the end the tables of the run
# (throughput, scaling over partitions and upload_concurrency, latency) are printed from the results file.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"

# BENCH_JAR / SINK_JAR override the jars (e.g. to bench another build of the sink); SINK_JAVA the java command the
# sink runs on (default: the one running the bench), e.g. to measure it on another Java release.
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
# The sink runs with the JVM options of the distribution's launcher (bin/iggy-s3-sink), as a user gets it;
# SINK_JAVA_OPTS replaces them (e.g. SINK_JAVA_OPTS="-Xmx1g" for java -jar with a heap of 1 GiB).
# Like the launcher, two malloc arenas and a native-heap trim every 2 s where the JVM has the option.
launcher_opts="-XX:+ExitOnOutOfMemoryError -XX:+UseSerialGC -XX:PretenureSizeThreshold=60k -XX:MinHeapFreeRatio=20"
launcher_opts="${launcher_opts} -Xmx256m -Xms48m -Xmn24m"
launcher_opts="${launcher_opts} -Dio.netty.allocator.type=unpooled"
launcher_opts="${launcher_opts} -XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000"
launcher_opts="${launcher_opts} -XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000"
launcher_opts="${launcher_opts} -XX:FreqInlineSize=200 -XX:InlineSmallCode=1000"
launcher_opts="${launcher_opts} -XX:C1MaxInlineSize=20 -XX:C1InlineStackLimit=5"
launcher_opts="${launcher_opts} -XX:Tier3InvocationThreshold=400 -XX:Tier3MinInvocationThreshold=200"
launcher_opts="${launcher_opts} -XX:Tier3CompileThreshold=4000 -XX:TypeProfileLevel=0"
if java -XX:TrimNativeHeapInterval=2000 -version >/dev/null 2>&1; then
  launcher_opts="${launcher_opts} -XX:TrimNativeHeapInterval=2000"
fi
export SINK_JAVA_OPTS="${SINK_JAVA_OPTS:-${launcher_opts}}"
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
# The in-JVM broker keeps every message on the heap (1M x 1 KiB is about 1.1 GB).
bench_java=(java -Xmx4g -jar "${bench_jar}")
sink_flag=(--sink-jar "${sink_jar}")

mode="all"
only=""
profile=""
pairs=2
jar_b=""
archive=""
jmh_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) mode="smoke" ;;
    --profile) profile="--jfr" ;;
    --jmh) mode="jmh" ;;
    --tables) mode="tables" ;;
    --only) only="$2"; shift ;;
    --pairs) pairs="$2"; shift ;;
    --jar-b) jar_b="$2"; shift ;;
    --archive) archive=1 ;;
    --) shift; jmh_args=("$@"); break ;;
    *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

[[ -n "${archive}" && -z "${jar_b}" ]] && { echo "bench.sh: --archive goes with --jar-b" >&2; exit 2; }
case "${mode}" in
  smoke) exec "${bench_java[@]}" e2e --smoke "${sink_flag[@]}" ;;
  # The table bench runs each sink through the distribution's launcher, with its default options.
  # Its in-JVM broker holds every record sent: 5M x 100 B for the rounds, then per freshness run 3 s of warm-up and
  # 15 s at the rate (the rounds' and 0.4 of it).
  tables) exec java -Xmx12g -jar "${bench_jar}" tables "${sink_flag[@]}" "${jmh_args[@]}" ;;
  jmh) exec java -jar "${bench_jar}" jmh -prof gc -rf json -rff bench-results/jmh.json "${jmh_args[@]}" ;;
esac

# name | flags. Message counts are sized so the whole list stays about 10 minutes on 2 shared cores.
# scale-*: the same 1 KiB json_lines run over 1, 8, 64 partitions (upload_concurrency 4) and over upload_concurrency
# 1, 2, 8 (8 partitions); scale-p8 is the uc 4 point of both series.
# latency-1s: rotate_schedule_interval = "1s", 20 records/s for 8 s; how long after its send each record was durable.
scenarios=(
  "1kib-8mib|--messages 1000000 --size 1KiB --partitions 8 --rotation size:8MiB ${profile}"
  "100b-1000rec|--messages 500000 --size 100 --partitions 8 --rotation messages:1000"
  "64kib-8mib|--messages 16000 --size 64KiB --partitions 8 --rotation size:8MiB"
  "1kib-gzip|--messages 200000 --size 1KiB --partitions 8 --rotation size:8MiB --compression gzip"
  "1kib-zstd|--messages 200000 --size 1KiB --partitions 8 --rotation size:8MiB --compression zstd"
  "1kib-parquet|--messages 200000 --size 1KiB --partitions 8 --rotation size:8MiB --format parquet"
  "p64-budget16mib|--messages 200000 --size 1KiB --partitions 64 --rotation size:8MiB --max-buffered-bytes 16MiB"
  "scale-p1|--messages 200000 --size 1KiB --partitions 1 --rotation size:8MiB --upload-concurrency 4"
  "scale-p8|--messages 200000 --size 1KiB --partitions 8 --rotation size:8MiB --upload-concurrency 4"
  "scale-p64|--messages 200000 --size 1KiB --partitions 64 --rotation size:8MiB --upload-concurrency 4"
  "scale-p8-uc1|--messages 200000 --size 1KiB --partitions 8 --rotation size:8MiB --upload-concurrency 1"
  "scale-p8-uc2|--messages 200000 --size 1KiB --partitions 8 --rotation size:8MiB --upload-concurrency 2"
  "scale-p8-uc8|--messages 200000 --size 1KiB --partitions 8 --rotation size:8MiB --upload-concurrency 8"
  "latency-1s|--latency --rotate-schedule 1s --trickle-rate 20 --trickle-seconds 8 --partitions 2"
)
mkdir -p bench-results
failed=0
start=$(date +%s)
if [[ "${only}" == "claims" ]]; then
  # Interleaved, and each pair's order flipped from the last, so that a machine getting slower or faster over the
  # run favours neither side. The MinIO of each run publishes its request counters (requests per file).
  for ((pair = 1; pair <= pairs; pair++)); do
    for entry in "${scenarios[@]}"; do
      name="${entry%%|*}"
      flags="${entry#*|}"
      [[ "${name}" == "100b-1000rec" || "${name}" == "1kib-8mib" ]] || continue
      # "first": claims on under key_layout = "first_offset" (ADR 0019: the data PUT is the claim).
      order=(on first off)
      (( pair % 2 == 0 )) && order=(off first on)
      for claims in "${order[@]}"; do
        layout=()
        run="${claims}"
        [[ "${claims}" == "first" ]] && { layout=(--key-layout first_offset); run=on; }
        # shellcheck disable=SC2086 # flags are word lists on purpose
        "${bench_java[@]}" e2e "${sink_flag[@]}" --name "${name}" ${flags} --claims "${run}" "${layout[@]}" \
          --no-baseline || { echo "bench.sh: ${name} (claims ${claims}) failed" >&2; failed=1; }
      done
    done
  done
  uptime
  java -jar "${bench_jar}" claims-cost --since "${start}" || failed=1
  echo "bench.sh: done in $(( $(date +%s) - start )) s; results in bench-results/results.jsonl"
  exit "${failed}"
fi
if [[ -n "${jar_b}" ]]; then
  [[ -f "${jar_b}" ]] || { echo "bench.sh: ${jar_b} is missing" >&2; exit 2; }
  declare -A side_opts=([a]="${SINK_JAVA_OPTS}" [b]="${SINK_JAVA_OPTS}")
  if [[ -n "${archive}" ]]; then
    # The launcher's default before Java 25: a dynamic archive written at the exit of a run, then used by the next.
    mkdir -p bench-results/archives
    for side in a b; do
      jar="${sink_jar}"
      [[ "${side}" == b ]] && jar="${jar_b}"
      jsa="bench-results/archives/$(cksum < "${jar}" | tr ' ' '-')-$("${SINK_JAVA:-java}" -version 2>&1 | cksum | cut -d' ' -f1).jsa"
      if [[ ! -f "${jsa}" ]]; then
        for entry in "${scenarios[@]}"; do
          name="${entry%%|*}"
          flags="${entry#*|}"
          # shellcheck disable=SC2053 # --only is a glob on purpose
          [[ -n "${only}" && "${name}" != ${only} ]] && continue
          echo "bench.sh: recording the class-data archive of ${jar} (${name}, not measured)"
          # shellcheck disable=SC2086 # flags are word lists on purpose
          SINK_JAVA_OPTS="${SINK_JAVA_OPTS} -XX:ArchiveClassesAtExit=${jsa} -Xlog:cds*=error" \
            "${bench_java[@]}" e2e --sink-jar "${jar}" --name "${name}@archive" ${flags} --no-baseline >/dev/null \
            || { echo "bench.sh: recording the archive of ${jar} failed" >&2; exit 1; }
          break
        done
        [[ -f "${jsa}" ]] || { echo "bench.sh: no archive was written for ${jar}" >&2; exit 1; }
      fi
      side_opts[${side}]="${SINK_JAVA_OPTS} -XX:SharedArchiveFile=${jsa} -Xlog:cds*=error"
    done
    start=$(date +%s)
  fi
  for ((pair = 1; pair <= pairs; pair++)); do
    for entry in "${scenarios[@]}"; do
      name="${entry%%|*}"
      flags="${entry#*|}"
      # shellcheck disable=SC2053 # --only is a glob on purpose
      [[ -n "${only}" && "${name}" != ${only} ]] && continue
      order=(a b)
      (( pair % 2 == 0 )) && order=(b a)
      for side in "${order[@]}"; do
        jar="${sink_jar}" run_name="${name}"
        [[ "${side}" == b ]] && jar="${jar_b}" run_name="${name}@b"
        # shellcheck disable=SC2086 # flags are word lists on purpose
        SINK_JAVA_OPTS="${side_opts[${side}]}" \
          "${bench_java[@]}" e2e --sink-jar "${jar}" --name "${run_name}" ${flags} --no-baseline \
          || { echo "bench.sh: ${run_name} failed" >&2; failed=1; }
      done
    done
  done
  uptime
  java -jar "${bench_jar}" e2e-table --since "${start}" || true
  echo "bench.sh: done in $(( $(date +%s) - start )) s; results in bench-results/results.jsonl"
  exit "${failed}"
fi
if [[ "${only}" == "table-self-audit" ]]; then
  "${bench_java[@]}" tables "${sink_flag[@]}" --catalogs jdbc --size 100 --messages 12000000 \
    --partitions 8 --self-audit-pairs "${pairs}" || failed=1
  uptime
  echo "bench.sh: done in $(( $(date +%s) - start )) s"
  exit "${failed}"
fi
if [[ "${only}" == "self-audit" ]]; then
  # As for claims: interleaved, each pair's order flipped. The runs with the self-audit on also report its thread's
  # CPU time and its store requests (the sink's iggysink_audit_* meters), which the noise of records/s cannot hide.
  for ((pair = 1; pair <= pairs; pair++)); do
    for entry in "audit-100b|--messages 3000000 --size 100 --partitions 8 --rotation messages:1000"; do
      name="${entry%%|*}"
      flags="${entry#*|}"
      order=(600 0)
      (( pair % 2 == 0 )) && order=(0 600)
      for budget in "${order[@]}"; do
        # shellcheck disable=SC2086 # flags are word lists on purpose
        "${bench_java[@]}" e2e "${sink_flag[@]}" --name "${name}" ${flags} --self-audit "${budget}" --no-baseline \
          || { echo "bench.sh: ${name} (self-audit ${budget}) failed" >&2; failed=1; }
      done
    done
  done
  uptime
  java -jar "${bench_jar}" self-audit-cost --since "${start}" || failed=1
  echo "bench.sh: done in $(( $(date +%s) - start )) s; results in bench-results/results.jsonl"
  exit "${failed}"
fi
for entry in "${scenarios[@]}"; do
  name="${entry%%|*}"
  flags="${entry#*|}"
  # shellcheck disable=SC2053 # --only is a glob on purpose
  [[ -n "${only}" && "${name}" != ${only} ]] && continue
  # shellcheck disable=SC2086 # flags are word lists on purpose
  "${bench_java[@]}" e2e "${sink_flag[@]}" --name "${name}" ${flags} || { echo "bench.sh: ${name} failed" >&2; failed=1; }
done
java -jar "${bench_jar}" e2e-table --since "${start}" || true
echo "bench.sh: done in $(( $(date +%s) - start )) s; results in bench-results/results.jsonl"
exit "${failed}"
