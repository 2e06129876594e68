package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.port.out.StoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.parquet.Parquet;

/**
 * Upkeep of a table the sink writes, through Iceberg's Java API: expiring old snapshots, compacting the sink's small
 * data files, deleting orphan data files. Safe beside a running sink: every commit here is made onto the snapshot it
 * read ({@link BasedOperations}), carries the offset map of that snapshot forward, and a race with the sink is lost
 * here (read again, tried again, given up), never by the sink.
 */
public final class TableUpkeep {
    /** Names the files a compaction writes, which are never compacted again. */
    static final String COMPACTED = "compacted-";
    /** The sink's data files: a random UUID and the extension ({@link IcebergTables#writeDataFile}). */
    private static final Pattern SINK_FILE =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.parquet");
    private static final int ATTEMPTS = 10;

    private final Table table;
    /** Runs inside a commit attempt, just before the catalog swaps; tests let the sink commit in there. */
    volatile Runnable atSwap = () -> { };

    public TableUpkeep(Table table) {
        this.table = table;
    }

    /** The upkeep of the tables of the catalog {@code settings} describe; close it to close the catalog. */
    public static Tables open(CatalogSettings settings) {
        return new Tables(IcebergCatalogs.open(settings));
    }

    /** The tables of one catalog, each loaded for its upkeep. */
    public static final class Tables implements AutoCloseable {
        private final Catalog catalog;

        Tables(Catalog catalog) {
            this.catalog = catalog;
        }

        /** The upkeep of table {@code name}; a table the catalog does not have is refused, naming it. */
        public TableUpkeep table(String name) throws StoreException {
            try {
                return new TableUpkeep(catalog.loadTable(TableIdentifier.parse(name)));
            } catch (NoSuchTableException e) {
                throw new StoreException("table " + name + " does not exist in the catalog", false, 404, null, e);
            } catch (RuntimeException e) {
                throw IcebergTables.failure("loading table " + name, e);
            }
        }

        @Override
        public void close() {
            if (catalog instanceof java.io.Closeable c) {
                try {
                    c.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("closing the catalog", e);
                }
            }
        }
    }

    /** What {@link #expire} did, or with {@code dryRun} would do. */
    public record Expiry(int before, int after, int keptForMap, boolean dryRun) {
        public String line() {
            return (dryRun ? "would expire " : "expired ") + (before - after) + " of " + before + " snapshot(s), "
                    + after + " left" + (keptForMap > 1 ? " (the " + keptForMap + " newest kept: the offset map is"
                    + " in the oldest of them)" : "");
        }
    }

    /**
     * Expires the snapshots older than {@code olderThan}, keeping the newest {@code retainLast} (at least the current)
     * and every snapshot back to the one holding the offset map: a snapshot of another writer after the sink's last
     * commit carries no map, and the sink reads it through to the one that does.
     */
    public Expiry expire(Instant olderThan, int retainLast, boolean dryRun) {
        for (int attempt = 1; ; attempt++) {
            table.refresh();
            Snapshot current = table.currentSnapshot();
            int before = count(table.snapshots());
            if (current == null) return new Expiry(before, before, 0, dryRun);
            int keptForMap = depthOfMap(current);
            ExpireSnapshots expire = based(current).expireSnapshots()
                    .expireOlderThan(olderThan.toEpochMilli())
                    .retainLast(Math.max(Math.max(retainLast, 1), keptForMap));
            // apply() gives the snapshots it would remove
            if (dryRun) return new Expiry(before, before - expire.apply().size(), keptForMap, true);
            try {
                expire.commit();
            } catch (BasedOperations.StaleBase | CommitFailedException e) {
                // the sink committed meanwhile: what to keep is decided again on its snapshot
                if (attempt == ATTEMPTS) throw e;
                continue;
            }
            table.refresh();
            return new Expiry(before, count(table.snapshots()), keptForMap, false);
        }
    }

    /** How many snapshots, from {@code current} back, reach the newest one that holds the whole offset map. */
    private int depthOfMap(Snapshot current) {
        int depth = 1;
        for (Snapshot s = current; s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (s.summary() != null && s.summary().containsKey(OffsetMap.COMMIT_ID)) return depth;
            depth++;
        }
        return 1;
    }

    /** What {@link #compact} did, or would do. */
    public record Compaction(String outcome, int partitions, int filesBefore, int filesAfter, long bytesBefore,
                             long bytesAfter, long rows, Duration took, Duration readBefore, Duration readAfter,
                             int conflicts) {
        static Compaction nothing(String why) {
            return new Compaction(why, 0, 0, 0, 0, 0, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO, 0);
        }

        public String line() {
            if (filesBefore == 0) return "compaction: " + outcome;
            String line = "compaction: " + outcome + ": " + filesBefore + " file(s) of " + partitions
                    + " partition(s), " + bytesBefore + " bytes, " + rows + " rows";
            if (filesAfter == 0) return line;
            return line + " -> " + filesAfter + " file(s), " + bytesAfter + " bytes in " + took.toMillis()
                    + " ms; reading the rows took " + readBefore.toMillis() + " ms from the small files, "
                    + readAfter.toMillis() + " ms from the new ones"
                    + (conflicts > 0 ? "; " + conflicts + " race(s) with other writers" : "");
        }
    }

    /**
     * Rewrites, per table partition, the sink's data files smaller than {@code targetBytes} into files of up to about
     * that size, in one {@link RewriteFiles} commit validated from the snapshot it planned on. Files a compaction wrote
     * are never taken again, nor files with deletes against them. On a race the commit is made again onto the new
     * snapshot (up to 10 times); when a file it rewrote is gone (another compaction), it gives up and deletes its own.
     */
    public Compaction compact(long targetBytes, boolean dryRun) {
        long started = System.nanoTime();
        table.refresh();
        Snapshot planned = table.currentSnapshot();
        if (planned == null) return Compaction.nothing("nothing to compact (the table has no snapshot)");
        List<List<DataFile>> bins = plan(planned, targetBytes);
        List<DataFile> inputs = bins.stream().flatMap(List::stream).toList();
        if (inputs.isEmpty()) return Compaction.nothing("nothing to compact (no two small files of the sink share"
                + " a partition)");
        int partitions = (int) bins.stream().map(TableUpkeep::partitionOf).distinct().count();
        long bytesBefore = inputs.stream().mapToLong(DataFile::fileSizeInBytes).sum();
        long rows = inputs.stream().mapToLong(DataFile::recordCount).sum();
        if (dryRun) {
            return new Compaction("would compact", partitions, inputs.size(), 0, bytesBefore, 0, rows,
                    Duration.ZERO, Duration.ZERO, Duration.ZERO, 0);
        }
        List<DataFile> outputs = new ArrayList<>();
        long readNanos = 0;
        try {
            for (List<DataFile> bin : bins) {
                Written w = rewrite(bin);
                outputs.add(w.file());
                readNanos += w.readNanos();
            }
            long readBack = System.nanoTime();
            long rowsAfter = 0;
            for (DataFile f : outputs) rowsAfter += read(f, r -> { });
            Duration readAfter = Duration.ofNanos(System.nanoTime() - readBack);
            if (rowsAfter != rows) {
                throw new IllegalStateException("the compacted files of table " + table.name() + " hold " + rowsAfter
                        + " rows, the files they replace " + rows + "; nothing was committed");
            }
            int conflicts = 0;
            String commitId = "maintain-" + UUID.randomUUID();
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                table.refresh();
                Snapshot base = table.currentSnapshot();
                Map<String, String> map = OffsetMap.properties(base, table::snapshot);
                RewriteFiles rewrite = based(base).newRewrite().validateFromSnapshot(planned.snapshotId());
                inputs.forEach(rewrite::deleteFile);
                outputs.forEach(rewrite::addFile);
                // The sink reads its map from the newest snapshot naming a commit: this one now, so it must hold it.
                map.forEach(rewrite::set);
                if (!map.isEmpty()) rewrite.set(OffsetMap.COMMIT_ID, commitId);
                try {
                    rewrite.commit();
                    long bytesAfter = outputs.stream().mapToLong(DataFile::fileSizeInBytes).sum();
                    return new Compaction("committed", partitions, inputs.size(), outputs.size(), bytesBefore,
                            bytesAfter, rows, Duration.ofNanos(System.nanoTime() - started),
                            Duration.ofNanos(readNanos), readAfter, conflicts);
                } catch (BasedOperations.StaleBase | CommitFailedException e) {
                    conflicts++;
                } catch (ValidationException e) {
                    delete(outputs);
                    return gaveUp("another writer changed the files it rewrote (" + e.getMessage() + ")", inputs,
                            partitions, bytesBefore, rows, conflicts);
                } catch (CommitStateUnknownException e) {
                    // They may be in the table: left where they are; if not, the orphan step finds them later.
                    return gaveUp("the catalog did not say whether it took the commit (" + e.getMessage() + ")",
                            inputs, partitions, bytesBefore, rows, conflicts);
                }
            }
            delete(outputs);
            return gaveUp("lost " + ATTEMPTS + " races with other writers in a row", inputs, partitions, bytesBefore,
                    rows, conflicts);
        } catch (IOException | RuntimeException e) {
            delete(outputs);
            if (e instanceof IOException io) throw new UncheckedIOException(io);
            throw (RuntimeException) e;
        }
    }

    private static Compaction gaveUp(String why, List<DataFile> inputs, int partitions, long bytes, long rows,
                                     int conflicts) {
        return new Compaction("gave up, nothing changed: " + why, partitions, inputs.size(), 0, bytes, 0, rows,
                Duration.ZERO, Duration.ZERO, Duration.ZERO, conflicts);
    }

    /** The small files of the sink in {@code snapshot}, in bins of one partition each, at least two per bin. */
    private List<List<DataFile>> plan(Snapshot snapshot, long targetBytes) {
        Map<String, List<DataFile>> byPartition = new TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile f = task.file();
                if (!task.deletes().isEmpty() || f.fileSizeInBytes() >= targetBytes) continue;
                if (!SINK_FILE.matcher(name(f.location())).matches()) continue;
                byPartition.computeIfAbsent(partitionOf(f), k -> new ArrayList<>()).add(f.copy());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<List<DataFile>> bins = new ArrayList<>();
        for (List<DataFile> files : byPartition.values()) {
            files.sort(Comparator.comparing(DataFile::location));
            List<DataFile> bin = new ArrayList<>();
            long size = 0;
            for (DataFile f : files) {
                if (!bin.isEmpty() && size + f.fileSizeInBytes() > targetBytes) {
                    if (bin.size() > 1) bins.add(bin);
                    bin = new ArrayList<>();
                    size = 0;
                }
                bin.add(f);
                size += f.fileSizeInBytes();
            }
            if (bin.size() > 1) bins.add(bin);
        }
        return bins;
    }

    private static String partitionOf(List<DataFile> bin) {
        return partitionOf(bin.get(0));
    }

    private static String partitionOf(DataFile f) {
        return f.specId() + ":" + f.partition();
    }

    private record Written(DataFile file, long readNanos) {
    }

    /** The rows of {@code bin}, all of one table partition, as one new data file, not committed. */
    private Written rewrite(List<DataFile> bin) throws IOException {
        DataFile first = bin.get(0);
        PartitionSpec spec = table.specs().get(first.specId());
        DataWriter<Record> writer = IcebergTables.dataWriter(table, table.schema(), spec,
                spec.isUnpartitioned() ? null : first.partition(), COMPACTED + UUID.randomUUID());
        long readNanos = 0;
        try (writer) {
            for (DataFile f : bin) {
                long start = System.nanoTime();
                long[] writing = {0};
                read(f, r -> {
                    long w = System.nanoTime();
                    writer.write(r);
                    writing[0] += System.nanoTime() - w;
                });
                readNanos += System.nanoTime() - start - writing[0];
            }
        }
        return new Written(writer.toDataFile(), readNanos);
    }

    /** Feeds each row of {@code file}, in the table's current schema, to {@code sink}; returns how many. */
    private long read(DataFile file, java.util.function.Consumer<Record> sink) throws IOException {
        Schema schema = table.schema();
        long n = 0;
        try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file.location()))
                .project(schema)
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                .build()) {
            for (Iterator<Record> it = rows.iterator(); it.hasNext(); n++) sink.accept(it.next());
        }
        return n;
    }

    private void delete(List<DataFile> files) {
        for (DataFile f : files) {
            try {
                table.io().deleteFile(f.location());
            } catch (RuntimeException e) {
                // left as an orphan, which the orphan step deletes later
            }
        }
    }

    /** What {@link #deleteOrphans} found and deleted. */
    public record Orphans(String location, int listed, List<FileInfo> found, int deleted, boolean dryRun,
                          String skipped) {
        public String line() {
            if (skipped != null) return "orphan files: skipped: " + skipped;
            long bytes = found.stream().mapToLong(FileInfo::size).sum();
            return "orphan files: " + found.size() + " of " + listed + " file(s) below " + location + " (" + bytes
                    + " bytes) in no snapshot and older than the grace period" + (dryRun ? ", not deleted (dry run)"
                    : ", " + deleted + " deleted");
        }
    }

    /**
     * Deletes the files below the table's data location that no snapshot of the table references and that were
     * written before {@code olderThan}: data files written and never committed (a crash between the write and the
     * commit). The grace period must outlast the longest a data file of a running sink waits for its commit.
     */
    public Orphans deleteOrphans(Instant olderThan, boolean dryRun) {
        table.refresh();
        String location = dataLocation();
        if (location == null) {
            return new Orphans(table.location(), 0, List.of(), 0, dryRun, "the table's " + TableProperties
                    .WRITE_DATA_LOCATION + " lies outside its location, where other tables' files may be");
        }
        if (!(table.io() instanceof SupportsPrefixOperations io)) {
            return new Orphans(location, 0, List.of(), 0, dryRun, "the table's file system cannot list files");
        }
        List<FileInfo> listed = new ArrayList<>();
        io.listPrefix(location).forEach(listed::add);
        // Read after listing: a file committed while listing is referenced by then.
        References refs = new References();
        refs.add(table);
        List<FileInfo> found = orphans(listed, refs, olderThan);
        if (dryRun || found.isEmpty()) return new Orphans(location, listed.size(), found, 0, dryRun, null);
        table.refresh();
        refs.add(table);
        found = orphans(found, refs, olderThan);
        int deleted = 0;
        for (FileInfo f : found) {
            io.deleteFile(f.location());
            deleted++;
        }
        return new Orphans(location, listed.size(), found, deleted, false, null);
    }

    private static List<FileInfo> orphans(List<FileInfo> files, References refs, Instant olderThan) {
        return files.stream().filter(f -> f.createdAtMillis() < olderThan.toEpochMilli())
                .filter(f -> !refs.paths.contains(comparable(f.location()))).toList();
    }

    /** The data and delete files of every snapshot, by {@link #comparable} location. */
    private static final class References {
        final Set<String> paths = new HashSet<>();
        final Set<String> manifests = new HashSet<>();

        void add(Table t) {
            for (Snapshot s : t.snapshots()) {
                for (ManifestFile m : s.allManifests(t.io())) {
                    if (!manifests.add(m.path())) continue;
                    try (CloseableIterable<String> files = ManifestFiles.readPaths(m, t.io(), t.specs())) {
                        files.forEach(p -> paths.add(comparable(p)));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
    }

    /**
     * A location without its scheme and the slashes after it: {@code s3://b/k} and {@code s3a://b/k}, or
     * {@code file:/d/f} and {@code file:///d/f}, name one file; a mismatch here would delete a committed one.
     */
    static String comparable(String location) {
        String s = location;
        int colon = s.indexOf(':');
        int slash = s.indexOf('/');
        if (colon > 0 && (slash < 0 || colon < slash)) s = s.substring(colon + 1);
        s = s.replaceAll("/+", "/");
        return s.startsWith("/") ? s.substring(1) : s;
    }

    /** The table's data location with a trailing slash; null when it lies outside the table's location. */
    private String dataLocation() {
        String root = table.location().endsWith("/") ? table.location() : table.location() + "/";
        String data = table.properties().get(TableProperties.WRITE_DATA_LOCATION);
        if (data == null) return root + "data/";
        String dir = data.endsWith("/") ? data : data + "/";
        return comparable(dir).startsWith(comparable(root)) ? dir : null;
    }

    private Table based(Snapshot base) {
        return new BaseTable(new BasedOperations(((HasTableOperations) table).operations(),
                base == null ? null : base.snapshotId(), atSwap), table.name());
    }

    private static String name(String location) {
        return location.substring(location.lastIndexOf('/') + 1);
    }

    private static int count(Iterable<?> items) {
        int n = 0;
        for (Object ignored : items) n++;
        return n;
    }
}
