package dev.iggysink.application.service;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.table.TableRouting;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * Brings the dead letters of one topic of the table sink home: each record that the current configuration decodes,
 * routes and converts goes as a row to each of its tables, with its original offset, exactly once across crashes and
 * runs (ADR 0018). Per batch of dead letters: their notes (naming the tables) are written first, then one commit per
 * table that leaves the offset map alone and names the dead letters in its summary, then the dead letters are deleted.
 * A later run finds a table holding a dead letter's record by that summary or by a row with its offset, and adds
 * nothing there.
 */
public final class TableRedrive {
    /** Dead letters per commit: bounds the summary that names them. */
    static final int BATCH = 200;

    private final TableStore store;
    private final RecordCodec codec;
    private final TableRouting routing;
    private final String dlqPrefix;
    private final String topicPrefix;
    private final InstantSource clock;
    private final Map<String, Set<String>> redrivenInto = new HashMap<>();
    private final Map<String, Map<PartitionRef, Set<Long>>> rowsOf = new HashMap<>();

    public TableRedrive(TableStore store, RecordCodec codec, TableRouting routing, String dlqPrefix, String stream,
                        String topic, InstantSource clock) {
        this.store = store;
        this.codec = codec;
        this.routing = routing;
        this.dlqPrefix = dlqPrefix;
        this.topicPrefix = DeadLetters.topicPrefix("", dlqPrefix, stream, topic);
        this.clock = clock;
    }

    /** A dead letter that goes to {@code missing} of its {@code tables} in this batch. */
    private record Pending(String key, DeadLetters.Letter letter, SinkRecord record, DecodedRecord decoded,
                           List<String> tables, List<String> missing) {
    }

    /**
     * Redrives every dead letter of the topic that {@code filter} takes, in key order; with {@code dryRun} nothing is
     * written and each outcome says what would happen. An outcome's detail names the tables (comma-separated) or the
     * error.
     *
     * @param committed the group's committed offset of a partition; empty when it has none
     * @throws StoreException the catalog or the store failed; what was done stays done, and a second run goes on
     */
    public List<Redrive.Outcome> run(Function<PartitionRef, OptionalLong> committed, Redrive.Filter filter,
                                     boolean dryRun) throws StoreException {
        List<Redrive.Outcome> out = new ArrayList<>();
        List<Pending> batch = new ArrayList<>();
        List<String> keys = new ArrayList<>(store.deadLetterKeys(topicPrefix));
        java.util.Collections.sort(keys);
        for (String key : keys) {
            String name = key.substring(topicPrefix.length());
            OptionalInt partition = Redrive.partitionOf(name);
            if (partition.isEmpty()) continue;
            OptionalLong offset = DeadLetters.offset(name, partition.getAsInt());
            if (offset.isEmpty() || !filter.takes(partition.getAsInt(), offset.getAsLong())) continue;
            Optional<byte[]> content = store.readDeadLetter(key);
            if (content.isEmpty()) continue; // gone since the listing: another run took it
            DeadLetters.Letter letter;
            try {
                letter = DeadLetters.parse(content.get());
            } catch (IllegalArgumentException e) {
                out.add(new Redrive.Outcome(key, partition.getAsInt(), offset.getAsLong(), Redrive.Action.STILL_FAILS,
                        "not a dead letter this sink wrote: " + e.getMessage()));
                continue;
            }
            if (!filter.takes(letter.error())) continue;
            SinkRecord record = letter.record();
            OptionalLong c = committed.apply(record.partition());
            if (c.isEmpty() || record.offset() > c.getAsLong()) {
                out.add(new Redrive.Outcome(key, record.partition().partitionId(), record.offset(),
                        Redrive.Action.NOT_COMMITTED, "the group's committed offset is "
                        + (c.isEmpty() ? "none" : c.getAsLong())));
                continue;
            }
            Optional<Redrive.Outcome> done = one(key, letter, record, dryRun, batch);
            done.ifPresent(out::add);
            if (batch.size() >= BATCH) out.addAll(flush(batch));
        }
        out.addAll(flush(batch));
        return out;
    }

    /** The outcome of one dead letter, or empty when it joined {@code batch} to be written. */
    private Optional<Redrive.Outcome> one(String key, DeadLetters.Letter letter, SinkRecord record, boolean dryRun,
                                          List<Pending> batch) throws StoreException {
        int p = record.partition().partitionId();
        String noteKey = DeadLetters.redrivenKey("", dlqPrefix, key);
        // 1. An earlier run wrote the note and every table it names holds the record: only the letter is left to go.
        Optional<byte[]> note = store.readDeadLetter(noteKey);
        if (note.isPresent()) {
            String to = DeadLetters.parse(note.get()).redrivenTo();
            List<String> tables = to == null || to.isEmpty() ? List.of() : List.of(to.split(","));
            if (!tables.isEmpty() && allHold(tables, key, record)) {
                if (!dryRun) store.deleteDeadLetter(key);
                return Optional.of(new Redrive.Outcome(key, p, record.offset(), Redrive.Action.FINISHED, to));
            }
        }
        // 3. The current configuration's decoding, transforms, routing and each table's schema.
        DecodedRecord decoded;
        List<String> tables;
        List<String> missing = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        try {
            decoded = codec.decode(record);
            tables = routing.tablesFor(decoded);
        } catch (BadRecordException e) {
            return Optional.of(stillFails(key, letter, record, message(e), dryRun));
        }
        for (String table : tables) {
            try {
                // 2. A table that holds it already (the sink read it again after the fix, or an earlier run's commit)
                if (holds(table, key, record)) continue;
                missing.add(table);
                TableStore.RowFile trial = store.newFile(table);
                try {
                    trial.append(decoded);
                } finally {
                    trial.discard();
                }
            } catch (BadRecordException e) {
                refusals.add("table " + table + ": " + message(e));
            } catch (StoreException e) {
                // a table the record names that cannot be written (absent, refused) is its error, as in the sink
                if (e.retryable()) throw e;
                refusals.add("table " + table + ": " + e.getMessage());
            }
        }
        if (!refusals.isEmpty()) {
            return Optional.of(stillFails(key, letter, record, String.join("; ", refusals), dryRun));
        }
        String to = String.join(",", tables);
        if (missing.isEmpty()) {
            if (!dryRun) {
                writeNote(noteKey, record, letter.error(), to);
                store.deleteDeadLetter(key);
            }
            return Optional.of(new Redrive.Outcome(key, p, record.offset(), Redrive.Action.ALREADY_DELIVERED, to));
        }
        if (dryRun) return Optional.of(new Redrive.Outcome(key, p, record.offset(), Redrive.Action.REDRIVEN, to));
        batch.add(new Pending(key, letter, record, decoded, tables, missing));
        return Optional.empty();
    }

    /** 4. Notes, then one commit per table, then 5. the dead letters, whose records are durable now. */
    private List<Redrive.Outcome> flush(List<Pending> batch) throws StoreException {
        if (batch.isEmpty()) return List.of();
        for (Pending d : batch) {
            writeNote(DeadLetters.redrivenKey("", dlqPrefix, d.key()), d.record(), d.letter().error(),
                    String.join(",", d.tables()));
        }
        Map<String, List<Pending>> byTable = new LinkedHashMap<>();
        for (Pending d : batch) {
            for (String table : d.missing()) byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(d);
        }
        for (Map.Entry<String, List<Pending>> e : byTable.entrySet()) {
            TableStore.RowFile file = store.newFile(e.getKey());
            List<String> letters = new ArrayList<>();
            try {
                for (Pending d : e.getValue()) {
                    file.append(d.decoded());
                    letters.add(d.key());
                }
            } catch (BadRecordException ex) {
                // the trial append took it a moment ago; a table changed in between is left to the next run
                file.discard();
                throw new StoreException("table " + e.getKey() + " refused a row it took a moment ago: "
                        + message(ex), true, 0, null, ex);
            }
            TableStore.Staged staged = file.stage();
            try {
                store.commitRedriven(e.getKey(), List.of(staged), letters);
            } catch (StoreException ex) {
                if (!ex.retryable()) store.discard(staged);
                throw ex;
            }
            redrivenInto.computeIfAbsent(e.getKey(), t -> new java.util.HashSet<>()).addAll(letters);
        }
        List<Redrive.Outcome> out = new ArrayList<>();
        for (Pending d : batch) {
            store.deleteDeadLetter(d.key());
            out.add(new Redrive.Outcome(d.key(), d.record().partition().partitionId(), d.record().offset(),
                    Redrive.Action.REDRIVEN, String.join(",", d.tables())));
        }
        batch.clear();
        return out;
    }

    private Redrive.Outcome stillFails(String key, DeadLetters.Letter letter, SinkRecord record, String error,
                                       boolean dryRun) throws StoreException {
        if (!dryRun && !error.equals(letter.error())) {
            store.writeDeadLetter(key, DeadLetters.content(record, error));
        }
        return new Redrive.Outcome(key, record.partition().partitionId(), record.offset(), Redrive.Action.STILL_FAILS,
                error);
    }

    private void writeNote(String noteKey, SinkRecord record, String error, String tables) throws StoreException {
        store.writeDeadLetter(noteKey, DeadLetters.note(record, error, tables, clock.instant()));
    }

    private boolean allHold(List<String> tables, String key, SinkRecord record) throws StoreException {
        for (String table : tables) {
            if (!holds(table, key, record)) return false;
        }
        return true;
    }

    /** Whether a commit of the table named the dead letter, or a row of the table holds its offset. */
    private boolean holds(String table, String key, SinkRecord record) throws StoreException {
        Set<String> named = redrivenInto.get(table);
        if (named == null) {
            named = new java.util.HashSet<>(store.redriven(table));
            redrivenInto.put(table, named);
        }
        if (named.contains(key)) return true;
        Map<PartitionRef, Set<Long>> rows = rowsOf.computeIfAbsent(table, t -> new HashMap<>());
        Set<Long> offsets = rows.get(record.partition());
        if (offsets == null) {
            offsets = new java.util.HashSet<>(store.rowOffsets(table, List.of(record.partition()))
                    .map(m -> m.getOrDefault(record.partition(), List.of())).orElse(List.of()));
            rows.put(record.partition(), offsets);
        }
        return offsets.contains(record.offset());
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
