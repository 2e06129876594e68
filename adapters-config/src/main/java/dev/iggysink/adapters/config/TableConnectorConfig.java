package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.application.table.TableSettings;
import java.util.List;
import java.util.Objects;

/**
 * One Iceberg table sink connector: the streams it reads, its pipeline ({@link TableSettings}, the application's
 * record) and how to reach the catalog, Iggy and the admin server.
 */
public record TableConnectorConfig(String key, String name, boolean enabled, List<StreamSettings> streams,
                                   TableSettings table, CatalogConfig catalog, IggyConfig iggy, AdminConfig admin,
                                   java.util.Optional<Creation> creation, List<TransformSettings> transforms,
                                   int selfAuditRequestsPerMinute) {

    /** With the self-audit off, as a sink built in code without the connector file has it. */
    public TableConnectorConfig(String key, String name, boolean enabled, List<StreamSettings> streams,
                                TableSettings table, CatalogConfig catalog, IggyConfig iggy, AdminConfig admin,
                                java.util.Optional<Creation> creation, List<TransformSettings> transforms) {
        this(key, name, enabled, streams, table, catalog, iggy, admin, creation, transforms,
                0);
    }

    /**
     * {@code create_tables = true}: how a missing table is created, {@code table_columns} ({@code "name type"} or
     * {@code "name type required"}) and {@code partition_spec} ({@code day(iggy_timestamp)}, ...), as written; the
     * Iceberg adapter checks and builds them. {@code evolve} ({@code evolve_tables}): columns an existing table lacks
     * are added to it.
     */
    public record Creation(List<String> columns, List<String> partitionSpec, boolean evolve) {
        public Creation {
            columns = List.copyOf(columns);
            partitionSpec = List.copyOf(partitionSpec);
        }

        public Creation(List<String> columns, List<String> partitionSpec) {
            this(columns, partitionSpec, false);
        }
    }

    public TableConnectorConfig {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(name, "name");
        streams = List.copyOf(streams);
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(iggy, "iggy");
        Objects.requireNonNull(admin, "admin");
        Objects.requireNonNull(creation, "creation");
        transforms = List.copyOf(transforms);
        if (selfAuditRequestsPerMinute < 0) throw new IllegalArgumentException("selfAuditRequestsPerMinute < 0");
    }
}
