package dev.iggysink.benchmarks.e2e;

import dev.iggysink.benchmarks.Payloads;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Flags of {@code e2e}; see {@link #USAGE}. Mutable while parsing, read-only afterwards. */
final class E2eOptions {
    static final String USAGE = """
            usage: java -jar benchmarks/target/benchmarks.jar e2e [options]
              --messages N              messages to produce (default 1000000; --smoke: 20000)
              --size S                  JSON payload size, e.g. 100, 1KiB, 64KiB (default 1KiB)
              --partitions P            partitions of the topic (default 8)
              --format F                json_lines | json_array | raw | avro | parquet (default json_lines)
              --payload-shape S         as_produced | sorted | spaced: keys in producer order, sorted (what the sink prints),
                                        or with spaces (default as_produced)
              --rotation R              size:8MiB | messages:1000 (default size:8MiB)
              --compression C           none | gzip | zstd (default none)
              --max-buffered-bytes B    sink memory budget (default: the sink's, 72MiB)
              --buffer-directory D      the sink's buffer_directory for open files ("" keeps them on the heap;
                                        default: the sink's, the system temporary directory)
              --upload-concurrency C    sink upload_concurrency and the raw-PUT baseline's threads (default 4)
              --batch-length N          the sink's batch_length, messages per poll (default 1000)
              --self-audit N            the sink's self_audit_requests_per_minute, 0 = off (default: the sink's)
              --rotate-schedule D       the sink's rotate_schedule_interval, e.g. 1s (default unset)
              --latency                 trickle mode: the sink runs first, messages arrive at --trickle-rate for
                                        --trickle-seconds (defaults 20/s, 8 s; 2 partitions, rotate_schedule 1s);
                                        prints how long after being sent each record was committed (durable)
              --trickle-rate N          messages per second in --latency mode
              --trickle-seconds S       length of the trickle in --latency mode
              --name NAME               scenario label in the output and results file (default: derived)
              --sink-jar PATH           default: bootstrap/target/iggy-s3-sink.jar in this or a parent directory
              --sink-java-opts "..."    extra JVM options of the sink child (also env SINK_JAVA_OPTS)
              --sink-java PATH          the java command of the sink child (also env SINK_JAVA; default: this
                                        JVM's own), e.g. to measure the sink on another Java release
              --claims on|off           off: the sink's store ignores conditional writes, so the same build runs
                                        without claims (what claims cost; default on)
              --key-layout offsets|first_offset
                                        the sink's key_layout (default: the connector's default, offsets)
              --jfr                     record a JFR profile of the sink child (60 s, settings=profile)
              --results PATH            JSON-lines results file (default bench-results/results.jsonl)
              --no-baseline             skip the raw-PUT baseline
              --timeout SECONDS         give up after this long waiting for the sink (default 300)
              --smoke                   a few-seconds run for CI: 20000 x 1KiB, 4 partitions, 1000-message files
            Iggy: IGGY_TCP_ADDRESS=host:port uses that server, else an in-JVM broker. MinIO: MINIO_BINARY, minio on
            PATH or .tools/minio (or S3_TEST_ENDPOINT for an external store).""";

    long messages = 1_000_000;
    int size = 1024;
    int partitions = 8;
    String format = "json_lines";
    String rotationKind = "size";
    String rotationValue = "8MiB";
    String compression = "none";
    String maxBufferedBytes;
    String bufferDirectory;
    /** The sink's self_audit_requests_per_minute; null leaves the sink's default. */
    Integer selfAudit;
    int uploadConcurrency = 4;
    int batchLength = 1000;
    String name;
    String sinkJar;
    final List<String> sinkJavaOpts = new ArrayList<>();
    String sinkJava;
    boolean jfr;
    boolean claims = true;
    /** The sink's {@code key_layout}; null leaves the connector's default. */
    String keyLayout;
    String results = "bench-results/results.jsonl";
    boolean baseline = true;
    int timeoutSeconds = 300;
    boolean smoke;
    boolean help;
    String rotateSchedule;
    Payloads.Shape shape = Payloads.Shape.AS_PRODUCED;
    boolean latency;
    int trickleRate = 20;
    int trickleSeconds = 8;

    static E2eOptions parse(String[] args) {
        E2eOptions o = new E2eOptions();
        boolean messagesSet = false;
        boolean partitionsSet = false;
        boolean rotationSet = false;
        String env = System.getenv("SINK_JAVA_OPTS");
        if (env != null && !env.isBlank()) o.sinkJavaOpts.addAll(List.of(env.trim().split("\\s+")));
        String javaEnv = System.getenv("SINK_JAVA");
        if (javaEnv != null && !javaEnv.isBlank()) o.sinkJava = javaEnv.trim();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--messages" -> {
                    o.messages = Sizes.parse(value(args, ++i, a));
                    messagesSet = true;
                }
                case "--size" -> o.size = Math.toIntExact(Sizes.parse(value(args, ++i, a)));
                case "--partitions" -> {
                    o.partitions = Integer.parseInt(value(args, ++i, a));
                    partitionsSet = true;
                }
                case "--format" -> o.format = value(args, ++i, a).toLowerCase(Locale.ROOT);
                case "--rotation" -> {
                    String r = value(args, ++i, a);
                    int colon = r.indexOf(':');
                    if (colon < 0) throw new IllegalArgumentException("--rotation is size:<bytes> or messages:<n>");
                    o.rotationKind = r.substring(0, colon).toLowerCase(Locale.ROOT);
                    o.rotationValue = r.substring(colon + 1);
                    if (!o.rotationKind.equals("size") && !o.rotationKind.equals("messages")) {
                        throw new IllegalArgumentException("--rotation is size:<bytes> or messages:<n>");
                    }
                    rotationSet = true;
                }
                case "--compression" -> o.compression = value(args, ++i, a).toLowerCase(Locale.ROOT);
                case "--max-buffered-bytes" -> o.maxBufferedBytes = value(args, ++i, a);
                case "--buffer-directory" -> o.bufferDirectory = value(args, ++i, a);
                case "--upload-concurrency" -> o.uploadConcurrency = Integer.parseInt(value(args, ++i, a));
                case "--batch-length" -> o.batchLength = Integer.parseInt(value(args, ++i, a));
                case "--self-audit" -> o.selfAudit = Integer.parseInt(value(args, ++i, a));
                case "--name" -> o.name = value(args, ++i, a);
                case "--sink-jar" -> o.sinkJar = value(args, ++i, a);
                case "--sink-java-opts" -> o.sinkJavaOpts.addAll(List.of(value(args, ++i, a).trim().split("\\s+")));
                case "--sink-java" -> o.sinkJava = value(args, ++i, a);
                case "--jfr" -> o.jfr = true;
                case "--claims" -> o.claims = switch (value(args, ++i, a)) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("--claims is on or off");
                };
                case "--key-layout" -> o.keyLayout = switch (value(args, ++i, a)) {
                    case "offsets" -> "offsets";
                    case "first_offset" -> "first_offset";
                    default -> throw new IllegalArgumentException("--key-layout is offsets or first_offset");
                };
                case "--results" -> o.results = value(args, ++i, a);
                case "--no-baseline" -> o.baseline = false;
                case "--timeout" -> o.timeoutSeconds = Integer.parseInt(value(args, ++i, a));
                case "--smoke" -> o.smoke = true;
                case "--rotate-schedule" -> o.rotateSchedule = value(args, ++i, a);
                case "--latency" -> o.latency = true;
                case "--payload-shape" -> o.shape = shape(value(args, ++i, a));
                case "--trickle-rate" -> o.trickleRate = Integer.parseInt(value(args, ++i, a));
                case "--trickle-seconds" -> o.trickleSeconds = Integer.parseInt(value(args, ++i, a));
                case "--help", "-h" -> o.help = true;
                default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
            }
        }
        if (o.smoke) {
            if (!messagesSet) o.messages = 20_000;
            if (!partitionsSet) o.partitions = 4;
            if (!rotationSet) {
                o.rotationKind = "messages";
                o.rotationValue = "1000";
            }
        }
        if (o.latency) {
            if (!partitionsSet) o.partitions = 2;
            if (o.rotateSchedule == null) o.rotateSchedule = "1s";
            if (o.trickleRate <= 0 || o.trickleSeconds <= 0) {
                throw new IllegalArgumentException("--trickle-rate and --trickle-seconds must be > 0");
            }
            o.messages = (long) o.trickleRate * o.trickleSeconds;
        }
        if (o.messages <= 0 || o.partitions <= 0 || o.size <= 0 || o.uploadConcurrency <= 0 || o.batchLength <= 0) {
            throw new IllegalArgumentException(
                    "--messages, --size, --partitions, --upload-concurrency, --batch-length must be > 0");
        }
        if (o.name == null) {
            o.name = (o.smoke ? "smoke-" : "") + (o.latency ? "latency-" : "") + o.format + "-" + Sizes.human(o.size) + "-" + o.rotationKind + "_"
                    + o.rotationValue + "-p" + o.partitions + (o.compression.equals("none") ? "" : "-" + o.compression)
                    + (o.maxBufferedBytes == null ? "" : "-budget_" + o.maxBufferedBytes)
                    + (o.bufferDirectory == null ? "" : o.bufferDirectory.isEmpty() ? "-heap" : "-disk");
        }
        return o;
    }

    /**
     * The sink's JVM options with the bench's own switches: {@code --claims off} sets the system property the sink's
     * bootstrap reads to make its store ignore conditional writes (no connector key: users never get it).
     */
    List<String> sinkJavaOptsWithSwitches() {
        List<String> all = new ArrayList<>(sinkJavaOpts);
        if (!claims) all.add("-D" + CLAIMS_OFF_PROPERTY + "=true");
        return all;
    }

    /** The property of the sink's {@code BenchConditionsOff}. */
    static final String CLAIMS_OFF_PROPERTY = "iggysink.bench.ignoreConditionalWrites";

    private static Payloads.Shape shape(String name) {
        try {
            return Payloads.Shape.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--payload-shape is as_produced, sorted or spaced, not " + name);
        }
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) throw new IllegalArgumentException(flag + " needs a value");
        return args[i];
    }
}
