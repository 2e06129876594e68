package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.PayloadSchema;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One {@code [[streams]]} entry as read from the file, with defaults applied and the Avro schema resolved (from
 * {@code avro_schema_json} or the file named by {@code avro_schema_path}).
 */
record StreamDto(String stream, List<String> topics, PayloadSchema schema, int batchLength, Duration pollInterval,
                 String consumerGroup, Optional<String> avroSchemaJson) {
}
