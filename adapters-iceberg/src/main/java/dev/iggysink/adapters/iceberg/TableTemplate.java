package dev.iggysink.adapters.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * How the sink creates a table that does not exist yet ({@code create_tables}): the Iggy columns {@code iggy_offset}
 * (long), {@code iggy_partition_id} (int) and {@code iggy_timestamp} (timestamptz), all required, then the configured
 * columns ({@code "name type"} or {@code "name type required"}, types as Iceberg spells its primitives: {@code long},
 * {@code string}, {@code decimal(10,2)}, {@code timestamptz}, ...), partitioned by the configured transforms
 * ({@code day(iggy_timestamp)}, {@code identity(country)}, {@code bucket(16, user)}, {@code truncate(4, code)},
 * {@code hour(..)}, {@code month(..)}, {@code year(..)}). With {@code evolve} ({@code evolve_tables}), configured
 * columns an existing table lacks are added to it; without, they are warned of.
 */
public record TableTemplate(List<String> columns, List<String> partitionSpec, boolean evolve) {
    private static final Pattern COLUMN = Pattern.compile("\\s*([A-Za-z_][A-Za-z0-9_]*)\\s+(\\S+)(\\s+required)?\\s*");
    private static final Pattern TRANSFORM = Pattern.compile(
            "\\s*(identity|year|month|day|hour|bucket|truncate)\\(\\s*(?:(\\d+)\\s*,\\s*)?([A-Za-z_][A-Za-z0-9_]*)\\s*\\)\\s*");
    private static final java.util.Map<String, String> TAKES = java.util.Map.of(
            "identity", "a column of a primitive type",
            "year", "a date, timestamp or timestamptz column",
            "month", "a date, timestamp or timestamptz column",
            "day", "a date, timestamp or timestamptz column",
            "hour", "a timestamp or timestamptz column",
            "bucket", "an int, long, decimal, date, time, timestamp, timestamptz, string, uuid, fixed or binary column",
            "truncate", "an int, long, decimal, string or binary column");
    private static final List<String> IGGY_COLUMNS = List.of("iggy_offset", "iggy_partition_id", "iggy_timestamp");

    /**
     * Set on the tables the sink creates, read by Iceberg's Parquet writer (any writer's, the sink's included) from
     * the table's properties. Dictionary encoding off: for a log line or an id, each value is hashed into a
     * dictionary that never pays, about half the writer's CPU, and zstd alone made files no larger. zstd at level 1:
     * less CPU than the default 3, files of the same size. Pages of 128 KiB instead of 1 MiB: Parquet buffers a page
     * in slabs of about a seventh of the page, which above the launcher's 60 KiB pretenuring threshold went straight
     * to the old generation and filled it with garbage (about a full collection per 30k rows of 1 KiB); at 128 KiB
     * most are small enough for the young generation. Figures in docs/performance.md; a table owner may change any
     * of them, and the sink writes by the table's properties as they are.
     */
    public static final java.util.Map<String, String> WRITE_PROPERTIES = java.util.Map.of(
            "parquet.enable.dictionary", "false",
            "write.parquet.compression-level", "1",
            "write.parquet.page-size-bytes", "131072");

    public TableTemplate {
        columns = List.copyOf(columns);
        partitionSpec = List.copyOf(partitionSpec);
    }

    /** A template that does not change existing tables. */
    public TableTemplate(List<String> columns, List<String> partitionSpec) {
        this(columns, partitionSpec, false);
    }

    /** Every problem of the template, each naming the entry; empty when it can be built. */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        try {
            spec(schema(out), out);
        } catch (IllegalArgumentException e) {
            out.add(e.getMessage());
        }
        return out;
    }

    /** The configured columns (not the Iggy ones) {@code existing} has no column of the name of. */
    List<Types.NestedField> missingFrom(Schema existing) {
        return schema(new ArrayList<>()).columns().stream()
                .filter(f -> !IGGY_COLUMNS.contains(f.name()) && existing.findField(f.name()) == null).toList();
    }

    /** What the sink does about configured columns an existing table lacks, for validate and run alike. */
    String missingColumns(String table, List<Types.NestedField> missing) {
        String names = String.join(", ", missing.stream().map(f -> f.name() + " " + f.type()).toList());
        return evolve
                ? "table " + table + " lacks table_columns " + names + ": the sink adds them"
                        + " (evolve_tables = true), as optional columns, before it writes to the table"
                : "table " + table + " lacks table_columns " + names + ": those fields are left out of"
                        + " every row; add the columns to the table, or set evolve_tables = true to have the sink"
                        + " add them";
    }

    Schema schema() {
        List<String> problems = new ArrayList<>();
        Schema s = schema(problems);
        if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
        return s;
    }

    PartitionSpec spec(Schema schema) {
        List<String> problems = new ArrayList<>();
        PartitionSpec spec = spec(schema, problems);
        if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
        return spec;
    }

    private Schema schema(List<String> problems) {
        List<Types.NestedField> fields = new ArrayList<>();
        int id = 1;
        fields.add(Types.NestedField.required(id++, "iggy_offset", Types.LongType.get()));
        fields.add(Types.NestedField.required(id++, "iggy_partition_id", Types.IntegerType.get()));
        fields.add(Types.NestedField.required(id++, "iggy_timestamp", Types.TimestampType.withZone()));
        for (int i = 0; i < columns.size(); i++) {
            Matcher m = COLUMN.matcher(columns.get(i));
            if (!m.matches()) {
                problems.add("table_columns[" + i + "]: \"" + columns.get(i) + "\" is not \"<name> <type>\" or"
                        + " \"<name> <type> required\"");
                continue;
            }
            String name = m.group(1);
            if (IGGY_COLUMNS.contains(name) || fields.stream().anyMatch(f -> f.name().equals(name))) {
                problems.add("table_columns[" + i + "]: column " + name + " is there already (the Iggy columns "
                        + IGGY_COLUMNS + " are added by the sink)");
                continue;
            }
            Type type;
            try {
                type = Types.fromPrimitiveString(m.group(2).toLowerCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                problems.add("table_columns[" + i + "]: \"" + m.group(2) + "\" is not an Iceberg primitive type"
                        + " (boolean, int, long, float, double, decimal(P,S), date, time, timestamp, timestamptz,"
                        + " string, uuid, binary, fixed[L])");
                continue;
            }
            fields.add(m.group(3) != null ? Types.NestedField.required(id++, name, type)
                    : Types.NestedField.optional(id++, name, type));
        }
        return new Schema(fields);
    }

    private PartitionSpec spec(Schema schema, List<String> problems) {
        PartitionSpec.Builder b = PartitionSpec.builderFor(schema);
        for (int i = 0; i < partitionSpec.size(); i++) {
            Matcher m = TRANSFORM.matcher(partitionSpec.get(i));
            String where = "partition_spec[" + i + "]: ";
            if (!m.matches()) {
                problems.add(where + "\"" + partitionSpec.get(i) + "\" is not one of identity(c), year(c), month(c),"
                        + " day(c), hour(c), bucket(N, c), truncate(W, c)");
                continue;
            }
            String transform = m.group(1);
            String column = m.group(3);
            boolean takesWidth = transform.equals("bucket") || transform.equals("truncate");
            if (takesWidth != (m.group(2) != null)) {
                problems.add(where + transform + (takesWidth ? " needs a number first: " + transform + "(N, "
                        + column + ")" : " takes the column alone"));
                continue;
            }
            if (schema.findField(column) == null) {
                problems.add(where + "no column " + column);
                continue;
            }
            Type type = schema.findField(column).type();
            // Iceberg checks this only when the spec is built, for all entries at once, naming neither
            if (!Transforms.fromString(transform + (takesWidth ? "[1]" : "")).canTransform(type)) {
                problems.add(where + transform + "(" + (takesWidth ? m.group(2) + ", " : "") + column + "): column "
                        + column + " is " + type + ", and " + transform + "() takes " + TAKES.get(transform));
                continue;
            }
            try {
                switch (transform) {
                    case "identity" -> b.identity(column);
                    case "year" -> b.year(column);
                    case "month" -> b.month(column);
                    case "day" -> b.day(column);
                    case "hour" -> b.hour(column);
                    case "bucket" -> b.bucket(column, Integer.parseInt(m.group(2)));
                    default -> b.truncate(column, Integer.parseInt(m.group(2)));
                }
            } catch (IllegalArgumentException e) {
                problems.add(where + e.getMessage());
            }
        }
        return b.build();
    }
}
