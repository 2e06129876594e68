package dev.iggysink.adapters.iceberg;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UnicodeUtil;

/**
 * A data file's value and null counts and lower and upper bounds of its top-level string columns, kept as rows are written,
 * in place of Parquet's statistics of those columns.
 *
 * <p>Why: Parquet keeps each page's minimum and maximum of a string column by comparing every value with both in
 * full, a byte at a time. For long values that share a long start (log lines, JSON held as text) that was a fifth
 * of the table sink's CPU (docs/performance.md). Iceberg keeps of those statistics only the counts and bounds
 * cut to a few characters (metrics mode {@code truncate(16)} by default), and the first characters of the least
 * and greatest value are the least and greatest of every value's first characters. So only those are compared
 * here, and Parquet's statistics of the column are turned off for the file. Iceberg's metadata ends up the same
 * (checked against Iceberg's own in {@code StringBoundsTest}); only the Parquet footer and page index of the file
 * lack the column's minimum and maximum.
 *
 * <p>A column is left to Parquet when its metrics mode is not {@code truncate}, or when the table's properties
 * say whether Parquet keeps its statistics ({@code write.parquet.stats-enabled.column.<name>}).
 */
final class StringBounds {
    private static final VarHandle BIG_ENDIAN_LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private final List<Column> columns;

    private StringBounds(List<Column> columns) {
        this.columns = columns;
    }

    /** The string columns of {@code schema} whose bounds are kept here for data files of {@code table}. */
    static StringBounds of(Table table, Schema schema) {
        MetricsConfig metrics = MetricsConfig.forTable(table);
        Map<String, String> properties = table.properties();
        List<Column> out = new ArrayList<>();
        List<Types.NestedField> fields = schema.columns();
        for (int i = 0; i < fields.size(); i++) {
            Types.NestedField f = fields.get(i);
            if (f.type().typeId() != Type.TypeID.STRING) continue;
            if (properties.containsKey(TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX + f.name())) continue;
            if (metrics.columnMode(f.name()) instanceof MetricsModes.Truncate t && t.length() > 0) {
                out.add(new Column(f.name(), f.fieldId(), i, t.length()));
            }
        }
        return new StringBounds(out);
    }

    /** The writer properties that turn Parquet's statistics of these columns off. */
    Map<String, String> writerProperties() {
        Map<String, String> out = new HashMap<>();
        for (Column c : columns) out.put(TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX + c.name, "false");
        return out;
    }

    /** The same columns with nothing taken in: one per data file. */
    StringBounds fresh() {
        List<Column> out = new ArrayList<>(columns.size());
        for (Column c : columns) out.add(new Column(c.name, c.id, c.position, c.length));
        return new StringBounds(out);
    }

    /** Takes in a row written to the file. */
    void add(StructLike row) {
        for (Column c : columns) c.add(row.get(c.position, Object.class));
    }

    /** {@code file} (as its writer describes it) with these columns' null counts and bounds. */
    DataFile applyTo(DataFile file, PartitionSpec spec) {
        if (columns.isEmpty()) return file;
        Map<Integer, Long> values = copy(file.valueCounts());
        Map<Integer, Long> nulls = copy(file.nullValueCounts());
        Map<Integer, ByteBuffer> lower = copy(file.lowerBounds());
        Map<Integer, ByteBuffer> upper = copy(file.upperBounds());
        for (Column c : columns) {
            values.put(c.id, c.values);
            nulls.put(c.id, c.nulls);
            lower.remove(c.id);
            upper.remove(c.id);
            if (c.min == null) continue;
            Literal<CharSequence> least = UnicodeUtil.truncateStringMin(Literal.of(text(c.min)), c.length);
            lower.put(c.id, Conversions.toByteBuffer(Types.StringType.get(), least.value()));
            // The greatest value is longer than its first characters exactly when one with the same first characters
            // is; Iceberg's upper bound then is those characters with the last one raised (none if none can be).
            String greatest = text(c.max) + (c.maxLonger ? "\u0000" : "");
            Literal<CharSequence> bound = UnicodeUtil.truncateStringMax(Literal.of(greatest), c.length);
            if (bound != null) upper.put(c.id, Conversions.toByteBuffer(Types.StringType.get(), bound.value()));
        }
        Metrics m = new Metrics(file.recordCount(), file.columnSizes(), values, nulls,
                file.nanValueCounts(), lower, upper);
        return DataFiles.builder(spec).copy(file).withMetrics(m).build();
    }

    /**
     * {@code a[0, length)} against all of {@code b}, bytes unsigned, eight at a time: what
     * {@code Arrays.compareUnsigned} answers, for the few bytes of a bound at less cost than its general way
     * (a tenth of the bounds' work at 100 B; {@code StringBoundsTest} compares the bounds with Iceberg's).
     */
    static int compare(byte[] a, int length, byte[] b) {
        int n = Math.min(length, b.length);
        int k = 0;
        for (; k + Long.BYTES <= n; k += Long.BYTES) {
            long x = (long) BIG_ENDIAN_LONGS.get(a, k);
            long y = (long) BIG_ENDIAN_LONGS.get(b, k);
            if (x != y) return Long.compareUnsigned(x, y);
        }
        for (; k < n; k++) {
            int x = a[k] & 0xFF;
            int y = b[k] & 0xFF;
            if (x != y) return x - y;
        }
        return length - b.length;
    }

    private static <K, V> Map<K, V> copy(Map<K, V> m) {
        return m == null ? new HashMap<>() : new HashMap<>(m);
    }

    private static String text(byte[] utf8) {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    /** One column's tally: the least and greatest first {@code length} characters, as UTF-8. */
    private static final class Column {
        final String name;
        final int id;
        final int position;
        final int length;
        long values;
        long nulls;
        byte[] min;
        byte[] max;
        /** Whether a value whose first characters are {@link #max} has more characters. */
        boolean maxLonger;

        Column(String name, int id, int position, int length) {
            this.name = name;
            this.id = id;
            this.position = position;
            this.length = length;
        }

        void add(Object value) {
            values++;
            if (value == null) {
                nulls++;
                return;
            }
            byte[] bytes;
            int end;
            if (value instanceof Utf8 u) {
                bytes = u.getBytes();
                end = u.getByteLength();
            } else {
                bytes = value.toString().getBytes(StandardCharsets.UTF_8);
                end = bytes.length;
            }
            int cut = afterCharacters(bytes, end, length);
            boolean longer = cut < end;
            // UTF-8's byte order is the order of code points, the order Parquet's statistics keep strings in.
            if (min == null || compare(bytes, cut, min) < 0) {
                min = Arrays.copyOf(bytes, cut);
            }
            int c = max == null ? 1 : compare(bytes, cut, max);
            if (c > 0) {
                max = Arrays.copyOf(bytes, cut);
                maxLonger = longer;
            } else if (c == 0 && longer) {
                maxLonger = true;
            }
        }

        /** Where the first {@code n} code points of the UTF-8 text {@code bytes[0, end)} end. */
        private static int afterCharacters(byte[] bytes, int end, int n) {
            int seen = 0;
            for (int i = 0; i < end; i++) {
                if ((bytes[i] & 0xC0) != 0x80 && seen++ == n) return i;
            }
            return end;
        }
    }
}
