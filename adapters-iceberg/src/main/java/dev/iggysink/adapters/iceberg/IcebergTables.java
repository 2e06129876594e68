package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.PartitionRef;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.data.parquet.InternalWriter;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The table store on Apache Iceberg: rows are written as Parquet data files by Iceberg's own writers, one per table
 * partition they fall in, and appended in one snapshot per commit whose summary carries the offset map
 * ({@link OffsetMap}). The check of the map and the swap of the snapshot are one step: the commit is made onto the
 * very snapshot whose map was checked ({@link BasedOperations}), and when the catalog answers that another writer
 * was first, the table is read again and the check made again.
 */
public final class IcebergTables implements TableStore {
    private static final System.Logger LOG = System.getLogger(IcebergTables.class.getName());
    private static final int ATTEMPTS = 20;

    private final Catalog catalog;
    private final String group;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    private final Map<String, Replacement> replacements = new ConcurrentHashMap<>();
    /** The catalog's identity of each table served, as loaded: a handle's own may change under it (see current). */
    private final Map<String, UUID> ids = new ConcurrentHashMap<>();
    /** Runs between a commit attempt's read of the table and its swap; tests let another writer in there. */
    volatile Runnable betweenReadAndSwap = () -> { };
    /** Runs inside a commit attempt, after Iceberg applied it and before the catalog swaps; tests race in there. */
    volatile Runnable atSwap = () -> { };

    private final Optional<TableTemplate> template;
    private final Optional<WarehouseFiles> warehouse;

    /** @param group the consumer group: the map keeps each group's offsets apart */
    public IcebergTables(Catalog catalog, String group) {
        this(catalog, group, Optional.empty());
    }

    /** @param template how to create a table that does not exist; empty: such a table is refused */
    public IcebergTables(Catalog catalog, String group, Optional<TableTemplate> template) {
        this(catalog, group, template, Optional.empty());
    }

    /**
     * @param warehouse where dead letters are written; empty (a REST catalog's warehouse named, not located): a dead
     *                  letter cannot be written, and a bad record under {@code errors_tolerance = "all"} halts its
     *                  partition rather than vanish
     */
    public IcebergTables(Catalog catalog, String group, Optional<TableTemplate> template,
                         Optional<WarehouseFiles> warehouse) {
        this.catalog = catalog;
        this.group = group;
        this.template = template;
        this.warehouse = warehouse;
    }

    /** The store of the catalog {@code settings} describe, dead letters below its warehouse. */
    public static IcebergTables open(CatalogSettings settings, String group, Optional<TableTemplate> template) {
        return new IcebergTables(IcebergCatalogs.open(settings), group, template, WarehouseFiles.of(settings));
    }

    /** As {@link #open(CatalogSettings, String, Optional)}; dead letter keys start with {@code dlqPrefix}. */
    public static IcebergTables open(CatalogSettings settings, String group, Optional<TableTemplate> template,
                                     String dlqPrefix) {
        return new IcebergTables(IcebergCatalogs.open(settings), group, template,
                WarehouseFiles.of(settings, dlqPrefix));
    }

    static final class StagedFiles implements Staged {
        final String table;
        /** The catalog's identity of the table the files were written for: a table replaced since cannot take them. */
        final UUID tableId;
        final List<DataFile> files;

        StagedFiles(String table, UUID tableId, List<DataFile> files) {
            this.table = table;
            this.tableId = tableId;
            this.files = List.copyOf(files);
        }

        @Override
        public int dataFiles() {
            return files.size();
        }

        @Override
        public long bytes() {
            return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
        }
    }

    /**
     * A file's rows, written as they arrive: each table partition they fall in has its own Parquet writer into
     * memory, so a row is held as its encoded, compressed bytes, not as objects. Staging closes the writers once and
     * puts their bytes into the table's data location; a staging that failed puts the same bytes again.
     */
    private final class Rows implements RowFile {
        final String name;
        final Table table;
        final RowConverter converter;
        /**
         * The spec when the file was opened, as its schema is: a spec evolved since may partition by a column the
         * file's schema lacks. Iceberg keeps every spec a table had, so a file of an earlier one is still committed.
         */
        final PartitionSpec spec;
        final PartitionKey probe;
        /** How a row's partition is found: null where a field takes a nested column (Iceberg's way then). */
        final PartitionValues partitionValues;
        /** Which string columns' bounds the sink keeps instead of Parquet (see {@link StringBounds}). */
        final StringBounds bounds;
        /** Over the table's own properties, for each writer of this file (but the page check's, per writer). */
        final Map<String, String> writerProperties;
        /** The page size Parquet cuts at, and whether the table sets the rows of the first page check itself. */
        final long pageBytes;
        final boolean tableSetsPageCheck;
        final Map<PartitionKey, Part> parts = new LinkedHashMap<>();
        /** The part of the row before: rows in a row mostly share a partition, and equals is cheaper than a lookup. */
        Part last;
        int count;
        /** Why a row could not be written (a writer the table's properties refuse): staging fails with it. */
        StoreException broken;

        Rows(String name, Table table) {
            this.name = name;
            this.table = table;
            this.converter = new RowConverter(table.schema());
            this.spec = table.spec();
            this.probe = new PartitionKey(spec, converter.schema());
            this.partitionValues = PartitionValues.of(spec, converter.schema());
            this.bounds = StringBounds.of(table, converter.schema());
            this.writerProperties = bounds.writerProperties();
            this.pageBytes = org.apache.iceberg.util.PropertyUtil.propertyAsLong(table.properties(),
                    org.apache.iceberg.TableProperties.PARQUET_PAGE_SIZE_BYTES,
                    org.apache.iceberg.TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT);
            this.tableSetsPageCheck = table.properties().containsKey(PAGE_CHECK_MIN_ROWS);
        }

        @Override
        public void append(DecodedRecord record) throws BadRecordException {
            // asked once: a transformed record prints its JSON anew at each ask
            byte[] json = record.json();
            Record row = converter.convert(record.source(), json);
            count++;
            if (broken != null) return;
            try {
                // the converter's values are Iceberg's internal ones, as transforms take them
                if (partitionValues != null) partitionValues.fill(row, probe);
                else probe.partition(row);
                Part part = last != null && last.key.equals(probe) ? last : parts.get(probe);
                if (part == null) {
                    PartitionKey key = probe.copy();
                    part = new Part(table, converter.schema(), spec, key, bounds.fresh(),
                            tableSetsPageCheck ? writerProperties
                                    : withPageCheck(writerProperties, pageBytes, json.length));
                    parts.put(key, part);
                }
                last = part;
                part.write(row);
            } catch (RuntimeException e) {
                // the table's, not the record's: the file is never staged, so none of its rows is committed
                broken = failure("writing a data file of " + name, e);
            }
        }

        @Override
        public int count() {
            return count;
        }

        @Override
        public long heapBytes() {
            long heap = 0;
            for (Part p : parts.values()) heap += p.heapBytes();
            return heap;
        }

        @Override
        public Staged stage() throws StoreException {
            if (broken != null) throw broken;
            List<DataFile> written = new ArrayList<>();
            try {
                for (Part part : parts.values()) written.add(part.put(table, spec));
            } catch (IOException | RuntimeException e) {
                StagedFiles partial = new StagedFiles(name, table.uuid(), written);
                IcebergTables.this.discard(partial);
                throw failure("writing a data file of " + name, e);
            }
            parts.clear();
            last = null;
            count = 0;
            return new StagedFiles(name, table.uuid(), written);
        }

        @Override
        public void discard() {
            for (Part p : parts.values()) p.abandon();
            parts.clear();
            last = null;
            count = 0;
        }
    }

    /** One table partition's Parquet of a file: written into memory, then, once closed, its bytes. */
    private static final class Part {
        /** Parquet's page and column buffers of an open writer, beyond the bytes it reports. */
        private static final long WRITER_BUFFERS = 256 * 1024;
        final PartitionKey key;
        final FileBuffer output = new FileBuffer("memory:" + UUID.randomUUID());
        final DataWriter<Record> writer;
        final StringBounds bounds;
        /** Once closed: whether {@link #output} holds the file, and its description with an in-memory location. */
        boolean closed;
        DataFile local;

        Part(Table table, Schema schema, PartitionSpec spec, PartitionKey key, StringBounds bounds,
             Map<String, String> properties) {
            this.key = key;
            this.bounds = bounds;
            this.writer = openWriter(table, schema, spec, spec.isUnpartitioned() ? null : key, output, properties,
                    true);
        }

        void write(Record row) {
            bounds.add(row);
            writer.write(row);
        }

        long heapBytes() {
            return closed ? output.capacity() : writer.length() + WRITER_BUFFERS;
        }

        /** Puts the file's bytes, under a new name each time, in the table's data location; not committed. */
        DataFile put(Table table, PartitionSpec spec) throws IOException {
            if (!closed) {
                writer.close();
                local = bounds.applyTo(writer.toDataFile(), spec);
                closed = true;
            }
            String location = newLocation(table, spec, spec.isUnpartitioned() ? null : key);
            if (table.io() instanceof StoreFileIO store) {
                store.put(location, output.bytes());
            } else {
                try (PositionOutputStream out = table.io().newOutputFile(location).createOrOverwrite()) {
                    output.writeTo(out);
                }
            }
            return DataFiles.builder(spec).copy(local).withPath(location).withFileSizeInBytes(output.length())
                    .build();
        }

        void abandon() {
            if (closed) return;
            try {
                writer.close();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing a discarded writer: {0}", e.getMessage());
            }
        }
    }

    /**
     * {@code properties} with the rows after which Parquet first looks at a page's size: its default, 100, unless
     * fewer rows like the writer's first ({@code rowBytes}) fill a page, then that many (at least 1). After 100 rows
     * of 4 MiB Parquet held one uncompressed page of 400 MiB, and its compression a buffer of twice that, beyond any
     * budget. After the first look its estimate from the sizes seen decides; rows of up to a page over 100 keep
     * Parquet's own default, so their pages and files stay as they were.
     */
    static Map<String, String> withPageCheck(Map<String, String> properties, long pageBytes, long rowBytes) {
        long rows = Math.max(1, Math.min(PARQUET_PAGE_CHECK_ROWS, pageBytes / Math.max(1, rowBytes)));
        if (rows == PARQUET_PAGE_CHECK_ROWS) return properties;
        Map<String, String> out = new java.util.HashMap<>(properties);
        out.put(PAGE_CHECK_MIN_ROWS, Long.toString(rows));
        return out;
    }

    /** Iceberg's name for the rows of Parquet's first page size check (the fewest between two), and its default. */
    static final String PAGE_CHECK_MIN_ROWS =
            org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT;
    static final long PARQUET_PAGE_CHECK_ROWS =
            org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT_DEFAULT;

    /** Where a new data file of table partition {@code key} (null for an unpartitioned table) goes. */
    private static String newLocation(Table table, PartitionSpec spec, PartitionKey key) {
        return location(table, spec, key, UUID.randomUUID().toString());
    }

    private static String location(Table table, PartitionSpec spec, StructLike key, String name) {
        String file = FileFormat.PARQUET.addExtension(name);
        // An unpartitioned spec given to newDataLocation(spec, key, name) makes "data//name", which S3 refuses.
        return key == null ? table.locationProvider().newDataLocation(file)
                : table.locationProvider().newDataLocation(spec, key, file);
    }

    /**
     * What Iceberg's Parquet writer is built under: Hadoop's {@code Configuration} it makes for each writer finds
     * its default resources through the thread's context class loader and would parse {@code core-default.xml} (and
     * look for {@code core-site.xml}) anew for every data file, about 2.5 ms of CPU each, for keys no writer into
     * memory reads. Hidden from it, the writer's configuration holds the table's write properties only.
     */
    private static final ClassLoader WITHOUT_HADOOP_DEFAULTS = new ClassLoader(IcebergTables.class.getClassLoader()) {
        @Override
        public java.net.URL getResource(String name) {
            return HADOOP_DEFAULT_RESOURCES.contains(name) ? null : super.getResource(name);
        }
    };
    static final java.util.Set<String> HADOOP_DEFAULT_RESOURCES = java.util.Set.of("core-default.xml",
            "core-site.xml");

    /** Iceberg's own Parquet writer of table partition {@code key} (null: unpartitioned) into {@code output}. */
    private static DataWriter<Record> openWriter(Table table, Schema schema, PartitionSpec spec, StructLike key,
                                                 OutputFile output) {
        return openWriter(table, schema, spec, key, output, Map.of(), false);
    }

    /**
     * As above, with {@code properties} over the table's own (Parquet's per-column statistics); {@code internal}:
     * rows of Iceberg's internal values ({@link RowConverter}'s), else of Java's (dates, times as java.time).
     */
    private static DataWriter<Record> openWriter(Table table, Schema schema, PartitionSpec spec, StructLike key,
                                                 OutputFile output, Map<String, String> properties,
                                                 boolean internal) {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        Parquet.DataWriteBuilder builder;
        thread.setContextClassLoader(WITHOUT_HADOOP_DEFAULTS);
        try {
            builder = Parquet.writeData(output);
        } finally {
            thread.setContextClassLoader(before);
        }
        try {
            return builder
                    .forTable(table)
                    .schema(schema)
                    .withSpec(spec)
                    .withPartition(key)
                    .setAll(properties)
                    .createWriterFunc(internal ? InternalWriter::createWriter : GenericParquetWriter::create)
                    .overwrite()
                    .build();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Writes {@code records}, all of one table partition ({@code key}; null for an unpartitioned table), as one
     * Parquet data file in the table's data location by Iceberg's own writer; not committed.
     */
    static DataFile writeDataFile(Table table, Schema schema, PartitionSpec spec, PartitionKey key,
                                  List<Record> records) throws IOException {
        DataWriter<Record> writer = openWriter(table, schema, spec, key,
                table.io().newOutputFile(newLocation(table, spec, key)));
        try (writer) {
            records.forEach(writer::write);
        }
        return writer.toDataFile();
    }

    /**
     * A Parquet writer of one data file named {@code name} (plus the extension) in the table's data location, for
     * rows of one table partition ({@code key}; null for an unpartitioned table).
     */
    static DataWriter<Record> dataWriter(Table table, Schema schema, PartitionSpec spec, StructLike key, String name) {
        return openWriter(table, schema, spec, key, table.io().newOutputFile(location(table, spec, key, name)));
    }

    @Override
    public void open(String name) throws StoreException {
        table(name);
    }

    private Table table(String name) throws StoreException {
        Table t = tables.get(name);
        if (t != null) return t;
        try {
            t = catalog.loadTable(TableIdentifier.parse(name));
        } catch (NoSuchTableException e) {
            if (template.isEmpty()) {
                throw new StoreException("table " + name + " does not exist in the catalog (create it, or set"
                        + " create_tables = true)", false, 404, null, e);
            }
            t = create(name);
        } catch (RuntimeException e) {
            throw failure("loading table " + name, e);
        }
        if (template.isPresent()) t = withColumns(name, t, template.get());
        ids.putIfAbsent(name, t.uuid());
        tables.put(name, t);
        return t;
    }

    /**
     * The configured columns an existing table lacks: added by Iceberg's schema update with {@code evolve_tables}
     * (optional, since the table's rows so far have no value), else warned of, since their fields would be dropped.
     */
    private static Table withColumns(String name, Table t, TableTemplate template) throws StoreException {
        List<Types.NestedField> missing = template.missingFrom(t.schema());
        if (missing.isEmpty()) return t;
        if (!template.evolve()) {
            LOG.log(System.Logger.Level.WARNING, template.missingColumns(name, missing));
            return t;
        }
        try {
            UpdateSchema update = t.updateSchema();
            missing.forEach(f -> update.addColumn(f.name(), f.type()));
            update.commit();
            LOG.log(System.Logger.Level.INFO, "table {0}: added column(s) {1} of table_columns (evolve_tables = true)",
                    name, String.join(", ", missing.stream().map(f -> f.name() + " " + f.type()).toList()));
        } catch (CommitFailedException | IllegalArgumentException raced) {
            // another member (or writer) changed the schema first; what counts is whether the columns are there now
            try {
                t.refresh();
            } catch (RuntimeException e) {
                throw failure("reading table " + name + " after adding columns", e);
            }
            if (!template.missingFrom(t.schema()).isEmpty()) {
                throw new StoreException("table " + name + ": adding the columns of table_columns failed: "
                        + raced.getMessage(), true, 409, null, raced);
            }
        } catch (RuntimeException e) {
            throw failure("adding the columns of table_columns to table " + name, e);
        }
        return t;
    }

    /** Creates the table (and its namespace) from the template; a table another member created meanwhile is loaded. */
    private Table create(String name) throws StoreException {
        TableIdentifier id = TableIdentifier.parse(name);
        try {
            if (catalog instanceof SupportsNamespaces n && !n.namespaceExists(id.namespace())) {
                try {
                    n.createNamespace(id.namespace());
                } catch (AlreadyExistsException raced) {
                    // another member was first
                }
            }
            Schema schema = template.get().schema();
            try {
                Table t = catalog.createTable(id, schema, template.get().spec(schema), null,
                        TableTemplate.WRITE_PROPERTIES);
                LOG.log(System.Logger.Level.INFO, "created table {0} ({1}, partitioned by {2})", name,
                        template.get().columns(), template.get().partitionSpec());
                return t;
            } catch (AlreadyExistsException raced) {
                return catalog.loadTable(id);
            }
        } catch (IllegalArgumentException e) {
            throw new StoreException("table " + name + " cannot be created: " + e.getMessage(), false, 400, null, e);
        } catch (RuntimeException e) {
            throw failure("creating table " + name, e);
        }
    }

    /**
     * The table as the catalog holds it now: the loaded one refreshed, or, when it was dropped and created again
     * (Iceberg refuses to refresh a handle onto another table of the same name) or dropped while
     * {@code create_tables} is on (it is created again), the new one, which is then served from here on.
     *
     * @param doing what the caller does, for the message of a failure
     */
    private Table current(String name, String doing) throws StoreException {
        table(name);
        Table t;
        UUID known;
        synchronized (this) {
            t = tables.get(name);
            known = ids.get(name);
        }
        try {
            t.refresh();
            // A JDBC handle whose table was dropped refreshes to nothing, and later onto a table created since.
            if (((HasTableOperations) t).operations().current() == null) {
                return replaced(name, known, recreate(name, new NoSuchTableException("table %s is gone", name)));
            }
            if (!java.util.Objects.equals(t.uuid(), known)) return replaced(name, known, t);
            return t;
        } catch (NoSuchTableException e) {
            return replaced(name, known, recreate(name, e));
        } catch (IllegalStateException e) {
            // Iceberg refuses to refresh a handle onto another table of the same name ("Table UUID does not match")
            Table fresh;
            try {
                fresh = catalog.loadTable(TableIdentifier.parse(name));
            } catch (NoSuchTableException gone) {
                return replaced(name, known, recreate(name, gone));
            } catch (RuntimeException other) {
                throw failure(doing, e);
            }
            if (java.util.Objects.equals(fresh.uuid(), known)) throw failure(doing, e);
            return replaced(name, known, fresh);
        } catch (RuntimeException e) {
            throw failure(doing, e);
        }
    }

    /** A table dropped while the sink runs: created again from the template, or refused for good without one. */
    private Table recreate(String name, NoSuchTableException dropped) throws StoreException {
        if (template.isEmpty()) {
            throw new StoreException("table " + name + " was dropped from the catalog while the sink ran: create it"
                    + " again (reading then resumes from the group's offset), or set create_tables = true", false, 404,
                    null, dropped);
        }
        return create(name);
    }

    /**
     * Serves {@code now} for {@code name} instead of the table of identity {@code old}, once, however many threads
     * found the change.
     */
    private synchronized Table replaced(String name, UUID old, Table now) {
        if (!java.util.Objects.equals(ids.get(name), old)) return tables.get(name);
        Replacement last = replacements.get(name);
        Replacement r = new Replacement(name, String.valueOf(old), String.valueOf(now.uuid()),
                last == null ? 1 : last.count() + 1);
        ids.put(name, now.uuid());
        tables.put(name, now);
        replacements.put(name, r);
        // the consumer that holds the table's partitions warns, naming where reading resumes
        LOG.log(System.Logger.Level.INFO, "table {0} was dropped and created again (uuid {1} -> {2}): the new"
                + " table is used from now on, and its offset map starts empty", name, r.oldId(), r.newId());
        return now;
    }

    @Override
    public Optional<Replacement> replacement(String table) {
        return Optional.ofNullable(replacements.get(table));
    }

    @Override
    public RowFile newFile(String name) throws StoreException {
        return new Rows(name, table(name));
    }

    @Override
    public Map<PartitionRef, Long> durableOffsets(String name, Collection<PartitionRef> partitions)
            throws StoreException {
        Table t = current(name, "reading the offsets of table " + name);
        try {
            return OffsetMap.offsets(OffsetMap.properties(t.currentSnapshot(), t::snapshot), group, partitions);
        } catch (RuntimeException e) {
            throw failure("reading the offsets of table " + name, e);
        }
    }

    @Override
    public OptionalLong watermark(String name, String stream, String topic) throws StoreException {
        Table t = current(name, "reading the watermark of table " + name);
        try {
            return TableWatermarks.of(OffsetMap.properties(t.currentSnapshot(), t::snapshot), group, stream, topic);
        } catch (RuntimeException e) {
            throw failure("reading the watermark of table " + name, e);
        }
    }

    @Override
    public CommitResult commit(String name, List<Append> appends) throws StoreException {
        return commit(name, appends, null);
    }

    @Override
    public CommitResult commit(String name, List<Append> appends, Times times) throws StoreException {
        String commitId = UUID.randomUUID().toString();
        int conflicts = 0;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Snapshot base;
            Map<String, String> properties;
            Table t = current(name, "reading table " + name + " before a commit");
            for (Append a : appends) {
                for (Staged s : a.files()) {
                    UUID written = ((StagedFiles) s).tableId;
                    if (!java.util.Objects.equals(written, t.uuid())) {
                        throw new StoreException("table " + name + " was replaced (uuid " + written + " -> "
                                + t.uuid() + ") after the files of this commit were written for it; nothing was"
                                + " committed", true, 409, null, null);
                    }
                }
            }
            try {
                base = t.currentSnapshot();
                properties = OffsetMap.properties(base, t::snapshot);
            } catch (RuntimeException e) {
                throw failure("reading table " + name + " before a commit", e);
            }
            List<PartitionRef> partitions = appends.stream().map(Append::partition).toList();
            Map<PartitionRef, Long> inTable = OffsetMap.offsets(properties, group, partitions);
            Set<PartitionRef> committed = new HashSet<>();
            Map<PartitionRef, Long> refused = new HashMap<>();
            Map<PartitionRef, Long> updates = new HashMap<>();
            List<DataFile> files = new ArrayList<>();
            for (Append a : appends) {
                long held = inTable.getOrDefault(a.partition(), -1L);
                if (held > a.expected()) {
                    refused.put(a.partition(), held);
                    continue;
                }
                committed.add(a.partition());
                updates.put(a.partition(), a.last());
                for (Staged s : a.files()) files.addAll(((StagedFiles) s).files);
            }
            if (committed.isEmpty()) return new CommitResult(committed, refused, conflicts);
            Table based = new BaseTable(new BasedOperations(((HasTableOperations) t).operations(),
                    base == null ? null : base.snapshotId(), atSwap), t.name());
            AppendFiles append = based.newAppend();
            files.forEach(append::appendFile);
            Map<String, String> summary = OffsetMap.with(properties, group, updates);
            OptionalLong watermark = OptionalLong.empty();
            if (times != null) {
                Set<Integer> left = new HashSet<>();
                for (PartitionRef p : refused.keySet()) left.add(p.partitionId());
                summary = TableWatermarks.with(summary, group, times, left);
                watermark = TableWatermarks.of(summary, group, times.stream(), times.topic());
            }
            summary.forEach(append::set);
            append.set(OffsetMap.COMMIT_ID, commitId);
            try {
                betweenReadAndSwap.run();
                append.commit();
                return new CommitResult(committed, refused, conflicts, watermark);
            } catch (BasedOperations.StaleBase | CommitFailedException e) {
                conflicts++;
                // Members of a group commit to one table now and then at once: ordinary, so one line, no trace.
                LOG.log(System.Logger.Level.INFO, "table {0}: another writer committed first (attempt {1} of {2});"
                        + " reading the table again: {3}", name, String.valueOf(attempt), String.valueOf(ATTEMPTS),
                        e.getMessage());
            } catch (CommitStateUnknownException e) {
                if (landed(t, commitId, base)) return new CommitResult(committed, refused, conflicts, watermark);
                throw new StoreException("commit to table " + name + ": the catalog did not say whether it took it ("
                        + e.getMessage() + ")", true, 0, null, e);
            } catch (ValidationException e) {
                throw new StoreException("commit to table " + name + " refused: " + e.getMessage(), false, 400, null,
                        e);
            } catch (RuntimeException e) {
                throw failure("commit to table " + name, e);
            }
        }
        throw new StoreException("commit to table " + name + ": lost " + ATTEMPTS + " races with other writers in a"
                + " row; nothing was committed", true, 409, null, null);
    }

    /** Whether a snapshot after {@code base} carries this commit's id. */
    private static boolean landed(Table t, String commitId, Snapshot base) {
        try {
            t.refresh();
            Long stop = base == null ? null : base.snapshotId();
            for (Snapshot s = t.currentSnapshot(); s != null && !java.util.Objects.equals(s.snapshotId(), stop);
                 s = s.parentId() == null ? null : t.snapshot(s.parentId())) {
                if (commitId.equals(s.summary().get(OffsetMap.COMMIT_ID))) return true;
            }
            return false;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot read table {0} after an unknown commit: {1}", t.name(),
                    e.getMessage());
            return false;
        }
    }

    /**
     * The tables of the catalog whose offset map names {@code stream}/{@code topic} for this group: where this group
     * has committed records of the topic, whatever routed them there (dynamic routing names tables per record).
     * Sorted by name.
     */
    public List<String> tablesHolding(String stream, String topic) throws StoreException {
        String prefix = OffsetMap.property(group, new PartitionRef(stream, topic, 0));
        List<String> out = new ArrayList<>();
        try {
            for (org.apache.iceberg.catalog.Namespace ns : namespaces(org.apache.iceberg.catalog.Namespace.empty())) {
                for (TableIdentifier id : catalog.listTables(ns)) {
                    Table t = catalog.loadTable(id);
                    if (OffsetMap.properties(t.currentSnapshot(), t::snapshot).containsKey(prefix)) {
                        out.add(id.toString());
                    }
                }
            }
        } catch (RuntimeException e) {
            throw failure("listing the tables of the catalog", e);
        }
        java.util.Collections.sort(out);
        return out;
    }

    /** {@code parent} and every namespace below it; a catalog without namespaces has the empty one only. */
    private List<org.apache.iceberg.catalog.Namespace> namespaces(org.apache.iceberg.catalog.Namespace parent) {
        List<org.apache.iceberg.catalog.Namespace> out = new ArrayList<>();
        if (!parent.isEmpty()) out.add(parent);
        if (catalog instanceof SupportsNamespaces n) {
            for (org.apache.iceberg.catalog.Namespace child : n.listNamespaces(parent)) out.addAll(namespaces(child));
        }
        return out;
    }

    @Override
    public Optional<Map<PartitionRef, List<Long>>> rowOffsets(String name, Collection<PartitionRef> partitions)
            throws StoreException {
        return rowOffsets(name, partitions, Long.MIN_VALUE);
    }

    /** Reads only the data files whose {@code iggy_offset} bounds reach {@code from}, and the rows at or past it. */
    @Override
    public Optional<Map<PartitionRef, List<Long>>> rowOffsets(String name, Collection<PartitionRef> partitions,
                                                              long from) throws StoreException {
        Table t = current(name, "reading the rows of table " + name);
        try {
            Schema schema = t.schema();
            if (schema.findField("iggy_offset") == null || schema.findField("iggy_partition_id") == null) {
                return Optional.empty();
            }
            boolean named = schema.findField("iggy_stream") != null && schema.findField("iggy_topic") != null;
            List<String> columns = named ? List.of("iggy_offset", "iggy_partition_id", "iggy_stream", "iggy_topic")
                    : List.of("iggy_offset", "iggy_partition_id");
            Map<PartitionRef, List<Long>> out = new HashMap<>();
            IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(t).select(columns);
            if (from != Long.MIN_VALUE) {
                scan = scan.where(org.apache.iceberg.expressions.Expressions.greaterThanOrEqual("iggy_offset", from));
            }
            try (CloseableIterable<Record> rows = scan.build()) {
                for (Record r : rows) {
                    Object offset = r.getField("iggy_offset");
                    Object id = r.getField("iggy_partition_id");
                    if (!(offset instanceof Number o) || !(id instanceof Number i) || o.longValue() < from) continue;
                    for (PartitionRef p : partitions) {
                        if (p.partitionId() != i.intValue()) continue;
                        if (named && (!p.stream().equals(r.getField("iggy_stream"))
                                || !p.topic().equals(r.getField("iggy_topic")))) {
                            continue;
                        }
                        out.computeIfAbsent(p, k -> new ArrayList<>()).add(o.longValue());
                    }
                }
            }
            return Optional.of(out);
        } catch (IOException | RuntimeException e) {
            throw failure("reading the rows of table " + name, e);
        }
    }

    /**
     * A data file of a {@link #dataFiles} listing, with what reads it: its format, and its scan task when delete files
     * apply to it.
     */
    private record ListedFile(String path, long size, List<String> deletes, long upper, FileFormat format,
                              FileScanTask withDeletes, FileIO io, Schema tableSchema, Schema projection,
                              boolean named, Single single, Optional<FileStats> stats) implements DataFileRef {
    }

    /**
     * The values that every row of a data file holds, by its column bounds (a lower bound equal to the upper one, no
     * null), or null per column where they do not say: such a column need not be read.
     */
    private record Single(Integer partitionId, String stream, String topic) {
        /** The one partition of {@code partitions} every row is of, or null when the bounds do not say. */
        PartitionRef of(Collection<PartitionRef> partitions, boolean named) {
            if (partitionId == null || named && (stream == null || topic == null)) return null;
            for (PartitionRef p : partitions) {
                if (p.partitionId() == partitionId && (!named || p.stream().equals(stream) && p.topic().equals(topic))) {
                    return p;
                }
            }
            return NONE;
        }

        static final PartitionRef NONE = new PartitionRef("-", "-", 0);
    }

    /**
     * The data files that may hold rows at or past {@code from}: after a listing at {@code since} that the current
     * snapshot descends from, what the snapshots since added and took out (their manifest lists and the manifests
     * they wrote), unless one of them added or removed delete files; otherwise a scan of the current snapshot with
     * {@code iggy_offset >= from}, so only the files whose bounds reach it are listed (its manifest list and every
     * manifest: an upper bound, the scan skips those whose partition summaries exclude the filter). The table's
     * metadata (the refresh) is one read more.
     */
    @Override
    public Optional<FileListing> dataFiles(String name, long from, OptionalLong since) throws StoreException {
        Table t = current(name, "listing the data files of table " + name);
        try {
            Schema schema = t.schema();
            if (schema.findField("iggy_offset") == null || schema.findField("iggy_partition_id") == null) {
                return Optional.of(new FileListing(false, -1, true, true, List.of(), List.of(), 1));
            }
            Snapshot current = t.currentSnapshot();
            if (current == null) return Optional.of(FileListing.whole(-1, since.isEmpty(), List.of(), 1));
            boolean descends = since.isEmpty()
                    || SnapshotUtil.isAncestorOf(t, current.snapshotId(), since.getAsLong());
            boolean named = schema.findField("iggy_stream") != null && schema.findField("iggy_topic") != null;
            Schema projection = schema.select(named
                    ? List.of("iggy_offset", "iggy_partition_id", "iggy_stream", "iggy_topic")
                    : List.of("iggy_offset", "iggy_partition_id"));
            if (since.isPresent() && descends) {
                Optional<FileListing> changes = changes(t, current, since.getAsLong(), schema, projection, named);
                if (changes.isPresent()) return changes;
            }
            int reads = 2 + current.allManifests(t.io()).size();
            TableScan scan = t.newScan().useSnapshot(current.snapshotId())
                    .filter(org.apache.iceberg.expressions.Expressions.greaterThanOrEqual("iggy_offset", from))
                    .project(projection)
                    .includeColumnStats(projection.columns().stream().map(Types.NestedField::name).toList());
            List<DataFileRef> files = new ArrayList<>();
            try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
                for (FileScanTask task : tasks) {
                    List<String> deletes = new ArrayList<>();
                    for (DeleteFile d : task.deletes()) deletes.add(d.location());
                    files.add(listed(task.file(), deletes, deletes.isEmpty() ? null : task, t.io(), schema,
                            projection, named));
                }
            }
            return Optional.of(FileListing.whole(current.snapshotId(), descends, files, reads));
        } catch (IOException | RuntimeException e) {
            throw failure("listing the data files of table " + name, e);
        }
    }

    /**
     * What the snapshots after {@code since} up to {@code current} added and took out; empty when one of them added
     * or removed delete files (the files listed before may have other deletes now).
     */
    private static Optional<FileListing> changes(Table t, Snapshot current, long since, Schema schema,
                                                 Schema projection, boolean named) {
        List<Snapshot> between = new ArrayList<>();
        SnapshotUtil.ancestorsBetween(t, current.snapshotId(), since).forEach(between::add);
        java.util.Collections.reverse(between); // oldest first: a file added, then taken out, is neither
        int reads = 1;
        Map<String, DataFileRef> added = new LinkedHashMap<>();
        List<String> removed = new ArrayList<>();
        for (Snapshot s : between) {
            reads++;
            for (ManifestFile m : s.deleteManifests(t.io())) {
                if (java.util.Objects.equals(m.snapshotId(), s.snapshotId())) return Optional.empty();
            }
            for (ManifestFile m : s.dataManifests(t.io())) {
                if (java.util.Objects.equals(m.snapshotId(), s.snapshotId())) reads++;
            }
            org.apache.iceberg.SnapshotChanges changed = org.apache.iceberg.SnapshotChanges.builderFor(t).snapshot(s)
                    .build();
            for (DataFile f : changed.removedDataFiles()) {
                if (added.remove(f.location()) == null) removed.add(f.location());
            }
            for (DataFile f : changed.addedDataFiles()) {
                added.put(f.location(), listed(f, List.of(), null, t.io(), schema, projection, named));
            }
        }
        return Optional.of(new FileListing(true, current.snapshotId(), true, false, new ArrayList<>(added.values()),
                removed, reads));
    }

    private static ListedFile listed(DataFile f, List<String> deletes, FileScanTask withDeletes, FileIO io,
                                     Schema schema, Schema projection, boolean named) {
        long upper = Long.MAX_VALUE;
        int field = schema.findField("iggy_offset").fieldId();
        java.nio.ByteBuffer bound = f.upperBounds() == null ? null : f.upperBounds().get(field);
        if (bound != null && schema.findType("iggy_offset") instanceof Types.LongType) {
            upper = org.apache.iceberg.types.Conversions.<Long>fromByteBuffer(Types.LongType.get(), bound);
        }
        Object id = single(f, schema, "iggy_partition_id");
        Object stream = named ? single(f, schema, "iggy_stream") : null;
        Object topic = named ? single(f, schema, "iggy_topic") : null;
        return new ListedFile(f.location(), f.fileSizeInBytes(), deletes, upper, f.format(), withDeletes, io, schema,
                projection, named, new Single(id instanceof Integer i ? i : null,
                stream == null ? null : stream.toString(), topic == null ? null : topic.toString()),
                stats(f, schema, named, stream, topic));
    }

    /**
     * What {@code f}'s manifest entry says of every row: its record count, the bounds of {@code iggy_offset} and
     * {@code iggy_partition_id} (and the one stream and topic when the table names them); empty when a bound or a null
     * count is missing, or a row lacks one of these values.
     */
    private static Optional<FileStats> stats(DataFile f, Schema schema, boolean named, Object stream, Object topic) {
        if (named && (stream == null || topic == null)) return Optional.empty();
        long[] offsets = bounds(f, schema.findField("iggy_offset"));
        long[] ids = bounds(f, schema.findField("iggy_partition_id"));
        if (offsets == null || ids == null || ids[0] < Integer.MIN_VALUE || ids[1] > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        return Optional.of(new FileStats(f.recordCount(), offsets[0], offsets[1], (int) ids[0], (int) ids[1],
                named ? Optional.of(stream.toString()) : Optional.empty(),
                named ? Optional.of(topic.toString()) : Optional.empty()));
    }

    /** The lower and upper bound of an integer {@code field} in {@code f}, or null unless every row holds a value. */
    private static long[] bounds(DataFile f, Types.NestedField field) {
        if (!(field.type() instanceof Types.LongType || field.type() instanceof Types.IntegerType)
                || f.lowerBounds() == null || f.upperBounds() == null || f.nullValueCounts() == null) {
            return null;
        }
        java.nio.ByteBuffer lower = f.lowerBounds().get(field.fieldId());
        java.nio.ByteBuffer upper = f.upperBounds().get(field.fieldId());
        Long nulls = f.nullValueCounts().get(field.fieldId());
        if (lower == null || upper == null || nulls == null || nulls != 0) return null;
        return new long[] {
                org.apache.iceberg.types.Conversions.<Number>fromByteBuffer(field.type(), lower).longValue(),
                org.apache.iceberg.types.Conversions.<Number>fromByteBuffer(field.type(), upper).longValue()};
    }

    /** Data files up to this size are read whole, in one request, before their columns are. */
    static final long READ_WHOLE_UP_TO = 8L << 20;

    /**
     * {@code file} in memory when it is at most {@link #READ_WHOLE_UP_TO}: one GET, where a Parquet reader seeks to
     * the footer's length, the footer, then each column chunk (a request each on an object store).
     */
    private static InputFile wholeIfSmall(InputFile file, long size) throws IOException {
        if (size > READ_WHOLE_UP_TO) return file;
        byte[] bytes = new byte[(int) size];
        try (java.io.InputStream in = file.newStream()) {
            int n = in.readNBytes(bytes, 0, bytes.length);
            if (n != bytes.length) {
                throw new IOException(file.location() + " holds " + n + " bytes, its metadata says " + size);
            }
        }
        return new org.apache.iceberg.inmemory.InMemoryInputFile(file.location(), bytes);
    }

    /** The one value every row of {@code f} holds in {@code column} by its bounds and null count; null if unknown. */
    private static Object single(DataFile f, Schema schema, String column) {
        Types.NestedField field = schema.findField(column);
        if (f.lowerBounds() == null || f.upperBounds() == null || f.nullValueCounts() == null) return null;
        java.nio.ByteBuffer lower = f.lowerBounds().get(field.fieldId());
        java.nio.ByteBuffer upper = f.upperBounds().get(field.fieldId());
        Long nulls = f.nullValueCounts().get(field.fieldId());
        if (lower == null || upper == null || nulls == null || nulls != 0 || !lower.equals(upper)) return null;
        Object value = org.apache.iceberg.types.Conversions.fromByteBuffer(field.type(), lower);
        return value instanceof CharSequence c ? c.toString() : value;
    }

    /** Reads one listed data file as Iceberg's generic reader does (its deletes applied), without the table. */
    @Override
    public Map<PartitionRef, OffsetRuns> rowOffsets(String name, DataFileRef file, Collection<PartitionRef> partitions,
                                                    long from) throws StoreException {
        ListedFile f = (ListedFile) file;
        Map<PartitionRef, long[]> offsets = new HashMap<>();
        Map<PartitionRef, Integer> counts = new HashMap<>();
        // a file whose bounds name one partition: only its offsets are read, or nothing when it is not asked for
        PartitionRef only = f.single().of(partitions, f.named());
        if (only == Single.NONE) return Map.of();
        Schema projection = only == null ? f.projection() : f.tableSchema().select("iggy_offset");
        try {
            CloseableIterable<Record> rows;
            InputFile input = wholeIfSmall(f.io().newInputFile(f.path(), f.size()), f.size());
            if (only != null && f.withDeletes() == null && f.format() == FileFormat.PARQUET) {
                OffsetColumn column = OffsetColumn.read(input, projection, from);
                if (column != null) return column.count() == 0 ? Map.of() : Map.of(only, column.runs());
            }
            if (f.withDeletes() == null) {
                rows = FormatModelRegistry.<Record, Object>readBuilder(f.format(), Record.class, input)
                        .project(projection).reuseContainers().build();
            } else {
                FileScanTask task = f.withDeletes();
                GenericDeleteFilter deletes = new GenericDeleteFilter(f.io(), task, f.tableSchema(), projection);
                rows = deletes.filter(FormatModelRegistry.<Record, Object>readBuilder(f.format(), Record.class, input)
                        .project(deletes.requiredSchema())
                        .idToConstant(PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant))
                        .filter(task.residual())
                        .build());
            }
            try (CloseableIterable<Record> kept = rows) {
                if (only != null) {
                    long[] a = new long[1024];
                    int n = 0;
                    for (Record r : kept) {
                        if (!(r.getField("iggy_offset") instanceof Number o) || o.longValue() < from) continue;
                        if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
                        a[n++] = o.longValue();
                    }
                    return n == 0 ? Map.of() : Map.of(only, OffsetRuns.of(a, n));
                }
                for (Record r : kept) {
                    Object offset = r.getField("iggy_offset");
                    Object id = r.getField("iggy_partition_id");
                    if (!(offset instanceof Number o) || !(id instanceof Number i) || o.longValue() < from) continue;
                    for (PartitionRef p : partitions) {
                        if (p.partitionId() != i.intValue()) continue;
                        if (f.named() && (!p.stream().equals(String.valueOf(r.getField("iggy_stream")))
                                || !p.topic().equals(String.valueOf(r.getField("iggy_topic"))))) {
                            continue;
                        }
                        int n = counts.getOrDefault(p, 0);
                        long[] a = offsets.computeIfAbsent(p, k -> new long[256]);
                        if (n == a.length) offsets.put(p, a = java.util.Arrays.copyOf(a, n * 2));
                        a[n] = o.longValue();
                        counts.put(p, n + 1);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            throw failure("reading data file " + f.path() + " of table " + name, e);
        }
        Map<PartitionRef, OffsetRuns> out = new HashMap<>();
        offsets.forEach((p, a) -> out.put(p, OffsetRuns.of(a, counts.get(p))));
        return out;
    }

    @Override
    public String writeDeadLetter(String key, byte[] content) throws StoreException {
        return deadLetterPlace().write(key, content);
    }

    @Override
    public List<String> deadLetterKeys(String prefix) throws StoreException {
        // without a place for them, none was ever written: a bad record halted its partition instead
        return warehouse.isPresent() ? warehouse.get().keys(prefix) : List.of();
    }

    private WarehouseFiles deadLetterPlace() throws StoreException {
        return warehouse.orElseThrow(() -> new StoreException("dead letters are written below the warehouse, and this"
                + " catalog's warehouse is a name, not a location (s3://bucket/path): set errors_tolerance = \"none\","
                + " set dlq_location, or name the warehouse by its location", false, 0, null, null));
    }

    @Override
    public Optional<byte[]> readDeadLetter(String key) throws StoreException {
        return warehouse.isPresent() ? warehouse.get().read(key) : Optional.empty();
    }

    @Override
    public void deleteDeadLetter(String key) throws StoreException {
        deadLetterPlace().delete(key);
    }

    /**
     * A plain append (Iceberg retries it on a concurrent commit: appending never conflicts) that sets no offset
     * property, so the map stays as the sink's last commit left it.
     */
    @Override
    public void commitRedriven(String name, List<Staged> files, Collection<String> letters) throws StoreException {
        Table t = current(name, "reading table " + name + " before a redrive commit");
        for (Staged s : files) {
            UUID written = ((StagedFiles) s).tableId;
            if (!java.util.Objects.equals(written, t.uuid())) {
                throw new StoreException("table " + name + " was replaced (uuid " + written + " -> " + t.uuid()
                        + ") after the redriven rows were written for it; nothing was committed", true, 409, null,
                        null);
            }
        }
        try {
            AppendFiles append = t.newAppend();
            for (Staged s : files) ((StagedFiles) s).files.forEach(append::appendFile);
            append.set(OffsetMap.REDRIVEN, String.join("\n", letters));
            append.commit();
        } catch (CommitStateUnknownException e) {
            if (redriven(name).containsAll(letters)) return;
            throw new StoreException("redrive commit to table " + name + ": the catalog did not say whether it took"
                    + " it (" + e.getMessage() + ")", true, 0, null, e);
        } catch (ValidationException e) {
            throw new StoreException("redrive commit to table " + name + " refused: " + e.getMessage(), false, 400,
                    null, e);
        } catch (RuntimeException e) {
            throw failure("redrive commit to table " + name, e);
        }
    }

    @Override
    public Set<String> redriven(String name) throws StoreException {
        Table t = current(name, "reading the history of table " + name);
        Set<String> out = new HashSet<>();
        try {
            for (Snapshot s : t.snapshots()) {
                String letters = s.summary() == null ? null : s.summary().get(OffsetMap.REDRIVEN);
                if (letters != null && !letters.isEmpty()) out.addAll(List.of(letters.split("\n")));
            }
        } catch (RuntimeException e) {
            throw failure("reading the history of table " + name, e);
        }
        return out;
    }

    @Override
    public void discard(Staged staged) {
        StagedFiles s = (StagedFiles) staged;
        Table t = tables.get(s.table);
        if (t == null) return;
        for (DataFile f : s.files) {
            try {
                t.io().deleteFile(f.location());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not delete the uncommitted data file {0}: {1}",
                        f.location(), e.getMessage());
            }
        }
    }

    /**
     * A failure of the catalog or of the store under it. Refusals are not retried: the catalog's (forbidden, not
     * authorised, no such table, invalid) and the store's 4xx (403, a missing bucket), as for dead letters
     * ({@link WarehouseFiles}); a store that does not answer or answers 5xx is.
     */
    static StoreException failure(String what, Throwable e) {
        StoreException store = WarehouseFiles.failure(what, e);
        boolean retryable = store.retryable() && !(e instanceof ForbiddenException
                || e instanceof NotAuthorizedException || e instanceof NoSuchTableException
                || e instanceof ValidationException || e instanceof IllegalArgumentException);
        return new StoreException(store.getMessage(), retryable, store.httpStatus(), null, e);
    }

    @Override
    public void close() {
        warehouse.ifPresent(WarehouseFiles::close);
        if (catalog instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.DEBUG, "closing the catalog: {0}", e.getMessage());
            }
        }
    }
}
