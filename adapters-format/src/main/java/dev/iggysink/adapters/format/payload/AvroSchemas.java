package dev.iggysink.adapters.format.payload;

import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * The schemas of avro and parquet output: which text applies, parsing it, and the written schema with the metadata
 * columns.
 *
 * <p>Metadata ({@code include_metadata}) is written as real top-level columns after the user's fields, not as a
 * wrapper around them: a Kafka Connect user gets the same shape from the InsertField SMT, and query engines can
 * filter on them without reaching into a nested group. The names carry an {@code iggy_} prefix so they do not take
 * a name a payload may use; a schema that already has one is refused when the codec is built. (No leading
 * underscore: Athena and Hive DDL then need the name quoted.)
 * <pre>
 *   iggy_offset        long
 *   iggy_timestamp     long, timestamp-micros   the Iggy timestamp, full microseconds (json_lines prints whole seconds)
 *   iggy_stream        string
 *   iggy_topic         string
 *   iggy_partition_id  int
 * </pre>
 */
public final class AvroSchemas {
    public static final String OFFSET = "iggy_offset";
    public static final String TIMESTAMP = "iggy_timestamp";
    public static final String STREAM = "iggy_stream";
    public static final String TOPIC = "iggy_topic";
    public static final String PARTITION_ID = "iggy_partition_id";
    static final List<String> METADATA = List.of(OFFSET, TIMESTAMP, STREAM, TOPIC, PARTITION_ID);

    private AvroSchemas() {
    }

    /**
     * The schema of avro/parquet output: the stream's {@code avro_schema_json} wins over the output's (a stream may
     * carry its own shape); neither is a configuration error.
     */
    public static Schema forOutput(StreamSettings stream, OutputSettings output) {
        Optional<String> text = stream.avroSchemaJson().or(output::avroSchemaJson);
        String format = output.format().name().toLowerCase(java.util.Locale.ROOT);
        if (text.isEmpty()) {
            throw new IllegalArgumentException("avro_schema_json (or avro_schema_path) is required for output_format = "
                    + "\"" + format + "\": " + format + " files are written with a schema");
        }
        Schema schema = parse(text.get());
        if (schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("avro_schema_json must be a record schema for output_format = \""
                    + format + "\", was " + schema.getType().getName());
        }
        return schema;
    }

    /** @throws IllegalArgumentException naming {@code avro_schema_json}, with Avro's reason */
    static Schema parse(String text) {
        try {
            return new Schema.Parser().parse(text);
        } catch (SchemaParseException | NullPointerException e) {
            throw new IllegalArgumentException("avro_schema_json is not a valid Avro schema: " + e.getMessage(), e);
        }
    }

    /** The user's record with the metadata fields appended; same name, so readers can resolve it by name. */
    public static Schema withMetadata(Schema user) {
        List<Schema.Field> fields = new ArrayList<>(user.getFields().size() + METADATA.size());
        for (Schema.Field f : user.getFields()) {
            if (METADATA.contains(f.name())) {
                throw new IllegalArgumentException("avro_schema_json field " + f.name() + " clashes with the "
                        + "include_metadata column of the same name; rename it or set include_metadata = false");
            }
            fields.add(new Schema.Field(f, f.schema()));
        }
        Schema timestamp = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        fields.add(new Schema.Field(OFFSET, Schema.create(Schema.Type.LONG), "Iggy message offset"));
        fields.add(new Schema.Field(TIMESTAMP, timestamp, "Iggy message timestamp (UTC)"));
        fields.add(new Schema.Field(STREAM, Schema.create(Schema.Type.STRING), "Iggy stream"));
        fields.add(new Schema.Field(TOPIC, Schema.create(Schema.Type.STRING), "Iggy topic"));
        fields.add(new Schema.Field(PARTITION_ID, Schema.create(Schema.Type.INT), "Iggy partition id"));
        Schema written = Schema.createRecord(user.getName(), user.getDoc(), user.getNamespace(), false, fields);
        user.getObjectProps().forEach(written::addProp);
        return written;
    }
}
