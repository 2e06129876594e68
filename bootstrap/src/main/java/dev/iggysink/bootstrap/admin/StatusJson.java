package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON bodies of {@code /health} and {@code /status}. Field names are snake_case like the connector file;
 * absent values are {@code null} rather than missing, so a dashboard sees the same shape every time.
 */
public final class StatusJson {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    static final String NO_SINK = "no sink is running";

    private StatusJson() {
    }

    /** The process as a whole: the worst health of any sink, and every sink's reasons. */
    public record Overall(Health health, List<String> reasons) {
        public Overall {
            reasons = List.copyOf(reasons);
        }
    }

    public static Overall overall(List<SinkView> sinks) {
        return overall(sinks, List.of());
    }

    /**
     * As {@link #overall(List)}, with {@code starting}: what the sinks not running yet wait for (the store, Iggy),
     * each a reason of a degraded process, so health names the cause while starting.
     */
    public static Overall overall(List<SinkView> sinks, List<String> starting) {
        if (sinks.isEmpty() && starting.isEmpty()) return new Overall(Health.DEGRADED, List.of(NO_SINK));
        Health worst = starting.isEmpty() ? Health.OK : Health.DEGRADED;
        List<String> reasons = new ArrayList<>(starting);
        for (SinkView s : sinks) {
            Health h = s.snapshot().health();
            if (h.ordinal() > worst.ordinal()) worst = h;
            for (String r : s.snapshot().reasons()) reasons.add(sinks.size() > 1 ? "sink " + s.key() + ": " + r : r);
        }
        return new Overall(worst, reasons);
    }

    /** {@code {"status":"ok"}}, or the status with its reasons. */
    public static String health(Overall overall) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("status", name(overall.health()));
        if (overall.health() != Health.OK) {
            ArrayNode reasons = root.putArray("reasons");
            overall.reasons().forEach(reasons::add);
        }
        return MAPPER.writeValueAsString(root);
    }

    /** {@code {"status":"alive"}}, or {@code "stuck"} with the consumer loops that stopped coming round. */
    public static String live(List<String> stuck) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("status", stuck.isEmpty() ? "alive" : "stuck");
        if (!stuck.isEmpty()) {
            ArrayNode reasons = root.putArray("reasons");
            stuck.forEach(reasons::add);
        }
        return MAPPER.writeValueAsString(root);
    }

    /** Process totals and health first, then each sink with its partitions. */
    public static String status(List<SinkView> sinks) {
        return status(sinks, false);
    }

    /**
     * As {@link #status(List)}, plus {@code token_required}: whether the control endpoints need the bearer token,
     * so the status page asks for it before it sends a request that would be refused.
     */
    public static String status(List<SinkView> sinks, boolean tokenRequired) {
        return status(sinks, List.of(), tokenRequired);
    }

    /** As {@link #status(List, boolean)}, with what the sinks not running yet wait for among the reasons. */
    public static String status(List<SinkView> sinks, List<String> starting, boolean tokenRequired) {
        Overall overall = overall(sinks, starting);
        ObjectNode root = MAPPER.createObjectNode();
        root.put("status", name(overall.health()));
        ArrayNode reasons = root.putArray("reasons");
        overall.reasons().forEach(reasons::add);
        root.put("token_required", tokenRequired);
        long oldest = 0;
        for (SinkView s : sinks) oldest = Math.max(oldest, s.snapshot().oldestPendingAgeSeconds());
        ObjectNode processTotals = root.putObject("totals");
        totals(processTotals, processTotals(sinks));
        processTotals.put("oldest_pending_record_age_seconds", oldest);
        Map<String, Long> rotations = new TreeMap<>();
        sinks.forEach(s -> s.rotations().forEach((reason, n) -> rotations.merge(reason, n, Long::sum)));
        rotations(root.putObject("rotations"), rotations);
        ArrayNode list = root.putArray("sinks");
        for (SinkView s : sinks) {
            ObjectNode sink = list.addObject();
            sink.put("key", s.key());
            sink.put("kind", s.tables().isPresent() ? "table" : "object");
            sink.put("status", name(s.snapshot().health()));
            ArrayNode sinkReasons = sink.putArray("reasons");
            s.snapshot().reasons().forEach(sinkReasons::add);
            ArrayNode unmarked = sink.putArray("unmarked");
            s.snapshot().unmarked().forEach(unmarked::add);
            if (s.snapshot().pausedSince().isPresent()) {
                sink.put("paused_since", s.snapshot().pausedSince().get().toString());
            } else {
                sink.putNull("paused_since");
            }
            ObjectNode sinkTotals = sink.putObject("totals");
            totals(sinkTotals, s.snapshot().totals());
            sinkTotals.put("oldest_pending_record_age_seconds", s.snapshot().oldestPendingAgeSeconds());
            rotations(sink.putObject("rotations"), new TreeMap<>(s.rotations()));
            ArrayNode partitions = sink.putArray("partitions");
            for (PartitionStatus p : s.snapshot().partitions()) {
                partition(partitions.addObject(), p, s.snapshot().takenAt());
            }
            if (s.tables().isPresent()) tables(sink.putObject("tables"), s.tables().get());
            else sink.putNull("tables");
            if (s.audit().isPresent()) audit(sink.putObject("self_audit"), s.audit().get());
            else sink.putNull("self_audit");
        }
        return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }

    /** Sums over sinks; each sink has its own memory budget, so the process budget is their sum too. */
    static StatusSnapshot.Totals processTotals(List<SinkView> sinks) {
        long records = 0, bytes = 0, objects = 0, uploaded = 0, retries = 0, dead = 0, buffered = 0, budget = 0;
        boolean paused = false;
        for (SinkView s : sinks) {
            StatusSnapshot.Totals t = s.snapshot().totals();
            records += t.recordsConsumed();
            bytes += t.bytesConsumed();
            objects += t.objectsUploaded();
            uploaded += t.bytesUploaded();
            retries += t.uploadRetries();
            dead += t.deadLettered();
            buffered += t.bufferedBytes();
            budget += t.maxBufferedBytes();
            paused |= t.paused();
        }
        return new StatusSnapshot.Totals(records, bytes, objects, uploaded, retries, dead, buffered, budget, paused);
    }

    private static void rotations(ObjectNode n, Map<String, Long> byReason) {
        byReason.forEach(n::put);
    }

    private static void totals(ObjectNode n, StatusSnapshot.Totals t) {
        n.put("records_consumed", t.recordsConsumed());
        n.put("bytes_consumed", t.bytesConsumed());
        n.put("objects_uploaded", t.objectsUploaded());
        n.put("bytes_uploaded", t.bytesUploaded());
        n.put("upload_retries", t.uploadRetries());
        n.put("dead_lettered", t.deadLettered());
        n.put("buffered_bytes", t.bufferedBytes());
        n.put("max_buffered_bytes", t.maxBufferedBytes());
        n.put("paused", t.paused());
    }

    private static void partition(ObjectNode n, PartitionStatus p, java.time.Instant now) {
        n.put("stream", p.stream());
        n.put("topic", p.topic());
        n.put("partition", p.partition());
        n.put("owned", p.owned());
        n.put("position", p.position());
        n.put("committed", p.committed());
        n.put("current_offset", p.currentOffset());
        n.put("lag", p.lag());
        n.put("oldest_pending_record_age_seconds", p.pendingAgeSeconds(now));
        n.put("buffered_records", p.bufferedRecords());
        n.put("buffered_bytes", p.bufferedBytes());
        n.put("open_files", p.openFiles());
        n.put("pending_uploads", p.pendingFiles());
        if (p.lastUploadKey().isPresent()) {
            n.put("last_upload_key", p.lastUploadKey().get());
            if (p.lastUploadAt().isPresent()) n.put("last_upload_at", p.lastUploadAt().get().toString());
            else n.putNull("last_upload_at");
            n.put("last_upload_millis", p.lastUploadMillis());
        } else {
            n.putNull("last_upload_key");
            n.putNull("last_upload_at");
            n.putNull("last_upload_millis");
        }
        if (p.lastError().isPresent()) n.put("last_error", p.lastError().get());
        else n.putNull("last_error");
        n.put("halted", p.halted());
    }

    /** A table sink's commit totals, then each (partition, table) lane. */
    static void tables(ObjectNode n, TableStatus t) {
        TableStatus.Totals c = t.totals();
        n.put("commits", c.commits());
        n.put("failed_commits", c.failedCommits());
        n.put("failures_in_row", c.failuresInRow());
        if (c.lastFailure().isPresent()) n.put("last_failure", c.lastFailure().get());
        else n.putNull("last_failure");
        n.put("conflicts", c.conflicts());
        n.put("refused_partitions", c.refusedPartitions());
        if (c.lastCommit().isPresent()) n.put("last_commit_millis", c.lastCommit().get().toMillis());
        else n.putNull("last_commit_millis");
        n.put("avg_commit_millis", c.averageCommit().toMillis());
        n.put("max_commit_millis", c.maxCommit().toMillis());
        n.put("data_files", c.dataFiles());
        n.put("data_bytes", c.dataBytes());
        n.put("rows_committed", c.rowsCommitted());
        n.put("bad_records", c.badRecords());
        n.put("dead_lettered", c.deadLetters());
        if (c.lastDeadLetter().isPresent()) n.put("last_dead_letter", c.lastDeadLetter().get());
        else n.putNull("last_dead_letter");
        n.put("replacements", t.replacements());
        ArrayNode replaced = n.putArray("replaced");
        t.replaced().forEach(replaced::add);
        ArrayNode watermarks = n.putArray("watermarks");
        for (TableStatus.Watermark w : t.watermarks()) {
            ObjectNode o = watermarks.addObject();
            o.put("stream", w.stream());
            o.put("topic", w.topic());
            o.put("table", w.table());
            o.put("watermark", w.before().toString());
        }
        ArrayNode lanes = n.putArray("lanes");
        for (TableStatus.Lane l : t.lanes()) {
            ObjectNode lane = lanes.addObject();
            lane.put("stream", l.stream());
            lane.put("topic", l.topic());
            lane.put("partition", l.partition());
            lane.put("table", l.table());
            lane.put("read_offset", l.read());
            lane.put("table_offset", l.tableOffset());
            lane.put("group_offset", l.groupOffset());
            lane.put("end_offset", l.endOffset());
            // the partition's backlog, as in "partitions": a table's map moves only with records routed to it
            lane.put("lag", l.endOffset() < 0 ? 0 : Math.max(0, l.endOffset() - l.groupOffset()));
            lane.put("sealed_files", l.sealedFiles());
            lane.put("open_records", l.openRecords());
            if (l.halted().isPresent()) lane.put("halted", l.halted().get());
            else lane.putNull("halted");
        }
    }

    /** What the sink's own audit last found, and what it covered. */
    static void audit(ObjectNode n, AuditStatus a) {
        n.put("requests_per_minute", a.requestsPerMinute());
        if (a.lastRound().isPresent()) n.put("last_round", a.lastRound().get().toString());
        else n.putNull("last_round");
        n.put("rounds", a.rounds());
        n.put("requests", a.requests());
        n.put("objects_verified", a.objectsVerified());
        n.put("verifications_skipped", a.verificationsSkipped());
        if (a.lastError().isPresent()) n.put("last_error", a.lastError().get());
        else n.putNull("last_error");
        ObjectNode counts = n.putObject("findings");
        counts.put("gaps", a.counts().gaps());
        counts.put("overlaps", a.counts().overlaps());
        counts.put("mismatches", a.counts().mismatches());
        counts.put("unverified", a.counts().unverified());
        counts.put("claims_left_behind", a.counts().claimsLeftBehind());
        ArrayNode problems = n.putArray("problems");
        a.problems().forEach(problems::add);
        ArrayNode notes = n.putArray("notes");
        a.notes().forEach(notes::add);
        ArrayNode covered = n.putArray("covered");
        for (AuditStatus.Covered c : a.covered()) {
            ObjectNode w = covered.addObject();
            w.put("stream", c.stream());
            w.put("topic", c.topic());
            w.put("partition", c.partition());
            w.put("from_offset", c.from());
            w.put("to_offset", c.to());
            w.put("objects", c.objects());
            w.put("at", c.at().toString());
        }
    }

    static String name(Health health) {
        return health.name().toLowerCase(Locale.ROOT);
    }
}
