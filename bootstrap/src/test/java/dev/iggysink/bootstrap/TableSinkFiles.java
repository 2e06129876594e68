package dev.iggysink.bootstrap;

import dev.iggysink.adapters.iceberg.CatalogSettings;
import dev.iggysink.adapters.iceberg.IcebergCatalogs;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;

/**
 * The Iceberg table sink connector file the tests write: sink {@code lake} with the given {@code [[streams]]}, tables
 * and {@code [plugin_config]} lines, then whatever sections a test needs ({@code [iggy]}, {@code [admin]},
 * {@code [transforms]}). Public for the end-to-end fixture.
 */
public final class TableSinkFiles {
    private TableSinkFiles() {
    }

    /**
     * The file's text. {@code tables} is the inside of the {@code tables} array, already quoted, so a test can give a
     * malformed one; {@code plugin} is the rest of {@code [plugin_config]}; {@code sections} are whole TOML tables
     * written after it.
     */
    public static String text(String streams, String tables, String plugin, String sections) {
        return """
                type = "sink"
                key = "lake"
                enabled = true
                version = 0
                name = "Iceberg sink"
                path = "target/release/libiggy_connector_iceberg_sink"

                """ + streams + "\n[plugin_config]\ntables = [" + tables + "]\n" + plugin.strip() + "\n\n"
                + sections;
    }

    /** One {@code [[streams]]} entry: JSON from {@code topics} of {@code stream}, read by the group {@code group}. */
    public static String stream(String stream, List<String> topics, String group) {
        return "[[streams]]\nstream = \"" + stream + "\"\ntopics = ["
                + topics.stream().map(t -> "\"" + t + "\"").collect(Collectors.joining(", "))
                + "]\nschema = \"json\"\nconsumer_group = \"" + group + "\"\n";
    }

    /** The zero-install catalog: JDBC on the SQLite file {@code db}, its warehouse at {@code warehouse}. */
    public static String sqliteCatalog(Object db, Object warehouse) {
        return "catalog_type = \"jdbc\"\nuri = 'jdbc:sqlite:file:" + db + "'\nwarehouse = '" + warehouse + "'\n";
    }

    /** Opens the catalog {@link #sqliteCatalog} names, with the namespace {@code lake} made, for a test's tables. */
    public static Catalog openSqlite(Object db, Object warehouse) {
        Catalog catalog = openCatalog(db, warehouse);
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("lake"));
        return catalog;
    }

    /** Opens the catalog {@link #sqliteCatalog} names, as it is. */
    public static Catalog openCatalog(Object db, Object warehouse) {
        return IcebergCatalogs.open(new CatalogSettings("jdbc", "iggy", "jdbc:sqlite:file:" + db,
                warehouse.toString(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), false));
    }
}
