package dev.iggysink.application.service;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.completeness.FileEntry;
import dev.iggysink.domain.completeness.Markers;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.zip.CRC32C;

/**
 * Brings the dead letters of one topic of the object sink home: each record that the current configuration decodes
 * goes to a one-record object under the key the sink would give it, exactly once across crashes and runs (ADR 0018:
 * a note naming the target is written before the target, and the dead letter is deleted only after the target is
 * durable).
 */
public final class Redrive {
    /** Metadata naming the dead letter a redriven object was made from. */
    static final String REDRIVEN_FROM = "iggy-redriven-from";

    /** Which dead letters to take: a partition (or all), an inclusive offset range, a text their error contains. */
    public record Filter(OptionalInt partition, long fromOffset, long toOffset, Optional<String> errorContains) {
        public static final Filter ALL = new Filter(OptionalInt.empty(), 0, Long.MAX_VALUE, Optional.empty());

        boolean takes(int partitionId, long offset) {
            return (partition.isEmpty() || partition.getAsInt() == partitionId) && offset >= fromOffset
                    && offset <= toOffset;
        }

        boolean takes(String error) {
            return errorContains.isEmpty() || error.contains(errorContains.get());
        }
    }

    public enum Action {
        /** written to its place now (or, in a dry run, would be) */
        REDRIVEN,
        /** an earlier run wrote its place; the dead letter is gone now */
        FINISHED,
        /** an object already holds the record (the sink read it again after the fix); nothing written */
        ALREADY_DELIVERED,
        /** it still fails; the dead letter carries the new error */
        STILL_FAILS,
        /** above the group's committed offset: the sink may still read it; left alone */
        NOT_COMMITTED
    }

    /** @param detail the target key, or the error */
    public record Outcome(String letter, int partition, long offset, Action action, String detail) {
    }

    private final ObjectStore store;
    private final RecordCodec codec;
    private final FileLayout layout;
    private final String dlqPrefix;
    private final InstantSource clock;
    private final String listPrefix;
    private final String topicPrefix;
    private final OutputSettings output;
    private final String stream;
    private final String topic;
    private List<StoredObject> listed;
    private String markerName;
    private Markers.Header markerHeader;
    private String progressPrefix;

    public Redrive(ObjectStore store, RecordCodec codec, OutputSettings output, String dlqPrefix, String stream,
                   String topic, InstantSource clock) {
        this.store = store;
        this.codec = codec;
        this.output = output;
        this.stream = stream;
        this.topic = topic;
        this.layout = new FileLayout(output, codec.extension());
        this.dlqPrefix = dlqPrefix;
        this.clock = clock;
        this.listPrefix = new Audit(store).listPrefix(output.prefix(), output.pathTemplate(), stream, topic);
        this.topicPrefix = DeadLetters.topicPrefix(output.prefix(), dlqPrefix, stream, topic);
    }

    /** Keeps the completeness markers of the sink {@code sinkKey} of consumer group {@code group} (ADR 0016). */
    public Redrive markers(String sinkKey, String group) {
        Optional<String> name = output.completionMarker();
        if (name.isPresent()) {
            markerName = name.get();
            markerHeader = new Markers.Header(name.get(), sinkKey, group, stream, topic);
            progressPrefix = Completeness.progressPrefix(output.prefix(), group, output.pathTemplate(), stream, topic);
        }
        return this;
    }

    /**
     * Redrives every dead letter of the topic that {@code filter} takes, in key order; with {@code dryRun} nothing
     * is written and each outcome says what would happen.
     *
     * @param committed the group's committed offset of a partition; empty when it has none
     * @throws StoreException the store failed; what was done before stays done, and a second run goes on from there
     */
    public List<Outcome> run(Function<PartitionRef, OptionalLong> committed, Filter filter, boolean dryRun)
            throws StoreException {
        List<Outcome> out = new ArrayList<>();
        for (StoredObject o : store.list(topicPrefix)) {
            String name = o.key().substring(topicPrefix.length());
            OptionalInt partition = partitionOf(name);
            if (partition.isEmpty()) continue;
            OptionalLong offset = DeadLetters.offset(name, partition.getAsInt());
            if (offset.isEmpty() || !filter.takes(partition.getAsInt(), offset.getAsLong())) continue;
            DeadLetters.Letter letter;
            try {
                letter = DeadLetters.parse(store.get(o.key()));
            } catch (IllegalArgumentException e) {
                out.add(new Outcome(o.key(), partition.getAsInt(), offset.getAsLong(), Action.STILL_FAILS,
                        "not a dead letter this sink wrote: " + e.getMessage()));
                continue;
            }
            if (!filter.takes(letter.error())) continue;
            SinkRecord record = letter.record();
            OptionalLong c = committed.apply(record.partition());
            if (c.isEmpty() || record.offset() > c.getAsLong()) {
                out.add(new Outcome(o.key(), record.partition().partitionId(), record.offset(), Action.NOT_COMMITTED,
                        "the group's committed offset is " + (c.isEmpty() ? "none" : c.getAsLong())));
                continue;
            }
            out.add(one(o.key(), letter, record, dryRun));
        }
        return out;
    }

    private Outcome one(String key, DeadLetters.Letter letter, SinkRecord record, boolean dryRun)
            throws StoreException {
        int p = record.partition().partitionId();
        String noteKey = DeadLetters.redrivenKey(layout.prefix(), dlqPrefix, key);
        // 1. An earlier run wrote the note and its target: only the dead letter is left to go.
        if (store.metadata(noteKey).isPresent()) {
            String target = DeadLetters.parse(store.get(noteKey)).redrivenTo();
            if (target != null && store.metadata(target).isPresent()) {
                if (!dryRun) {
                    marked(target, record);
                    store.delete(key);
                }
                return new Outcome(key, p, record.offset(), Action.FINISHED, target);
            }
        }
        // 2. An object that holds the offset already: the sink read the record again, or a run with another
        //    path_template wrote it before its note could name it.
        Optional<String> holder = holder(key, p, record.offset());
        if (holder.isPresent()) {
            if (!dryRun) {
                note(noteKey, record, letter.error(), holder.get());
                if (ObjectKey.parse(holder.get()).map(r -> r.firstOffset() == r.lastOffset()).orElse(false)) {
                    marked(holder.get(), record);
                }
                store.delete(key);
            }
            return new Outcome(key, p, record.offset(), Action.ALREADY_DELIVERED, holder.get());
        }
        // 3. The current configuration's decoding, transforms and key rules.
        FileBytes content;
        String target;
        try {
            DecodedRecord decoded = codec.decode(record);
            String directory = layout.directory(record.partition(), decoded);
            Optional<String> problem = layout.keyProblem(directory, record.partition(), record.offset());
            if (problem.isPresent()) throw new BadRecordException(problem.get());
            FileEncoder file = codec.newFile();
            file.append(decoded);
            content = file.finish();
            target = layout.key(directory, record.partition(), record.offset(), record.offset());
        } catch (BadRecordException e) {
            String error = e.getMessage() == null ? e.toString() : e.getMessage();
            if (!dryRun && !error.equals(letter.error())) {
                byte[] again = DeadLetters.content(record, error);
                store.put(key, FileBytes.of(again), "application/json", ObjectStamps.of(record));
            }
            return new Outcome(key, p, record.offset(), Action.STILL_FAILS, error);
        }
        if (dryRun) return new Outcome(key, p, record.offset(), Action.REDRIVEN, target);
        // 4. The note names the target before the target exists; 5. the dead letter goes once the target is durable.
        note(noteKey, record, letter.error(), target);
        Map<String, String> metadata = new HashMap<>(ObjectStamps.of(record));
        metadata.put(REDRIVEN_FROM, key);
        store.put(target, content, codec.contentType(), metadata);
        marked(target, record);
        store.delete(key);
        return new Outcome(key, p, record.offset(), Action.REDRIVEN, target);
    }

    /**
     * With completeness markers on, the marker of the target's folder is to list it (ADR 0018): {@code target} is
     * left for the member that marks the folder, and written into its marker at once when the folder is marked.
     */
    private void marked(String target, SinkRecord record) throws StoreException {
        if (markerName == null) return;
        byte[] bytes = store.get(target);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        FileEntry f = new FileEntry(FileEntry.folderOf(target), target, record.partition().partitionId(),
                record.offset(), record.offset(), 1, bytes.length, crc.getValue(), record.timestampMicros(),
                record.timestampMicros());
        Completeness.redriven(store, markerName, markerHeader, progressPrefix, PathTemplate.parse(output.pathTemplate()),
                output.timezone(), f);
    }

    private void note(String noteKey, SinkRecord record, String error, String target) throws StoreException {
        byte[] note = DeadLetters.note(record, error, target, clock.instant());
        store.put(noteKey, FileBytes.of(note), "application/json", Map.of());
    }

    /**
     * An object of the topic holding {@code offset} of partition {@code p}: a redriven one made from {@code letter},
     * or a data object whose range holds it with every record of the range inside.
     */
    private Optional<String> holder(String letter, int p, long offset) throws StoreException {
        if (listed == null) listed = store.list(listPrefix);
        String dlqSegment = "/" + dlqPrefix + "/";
        for (StoredObject o : listed) {
            if (!dlqPrefix.isEmpty() && o.key().contains(dlqSegment)) continue;
            Optional<KeyRange> r = ObjectKey.parse(o.key());
            if (r.isEmpty() || r.get().partitionId() != p || offset < r.get().firstOffset()
                    || offset > r.get().lastOffset()) {
                continue;
            }
            Optional<Map<String, String>> metadata = store.metadata(o.key());
            if (metadata.isEmpty()) continue;
            String from = metadata.get().get(REDRIVEN_FROM);
            if (from != null) {
                if (from.equals(letter)) return Optional.of(o.key());
                continue;
            }
            OptionalLong records = ObjectStamps.records(metadata.get());
            long span = r.get().lastOffset() - r.get().firstOffset() + 1;
            if (records.isPresent() && records.getAsLong() == span) return Optional.of(o.key());
        }
        return Optional.empty();
    }

    /** The partition a dead letter's name below its topic prefix starts with. */
    static OptionalInt partitionOf(String name) {
        int dash = name.indexOf('-');
        if (dash < 1 || name.indexOf('/') >= 0) return OptionalInt.empty();
        try {
            return OptionalInt.of(Integer.parseInt(name.substring(0, dash)));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
