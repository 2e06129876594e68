package dev.iggysink.application.table;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which tables a record goes to, as the Rust Iggy Iceberg sink routes: every record to each of the static
 * {@code tables}, or, with dynamic routing, to the one table a field of the record names ({@code namespace.table}).
 */
public record TableRouting(List<String> tables, Optional<String> routeField) {
    public TableRouting {
        tables = List.copyOf(tables);
        Objects.requireNonNull(routeField, "routeField");
        if (routeField.isEmpty() && tables.isEmpty()) throw new IllegalArgumentException("no table to write to");
        for (String t : tables) requireTableName(t);
    }

    public static TableRouting fixed(String... tables) {
        return new TableRouting(List.of(tables), Optional.empty());
    }

    public static TableRouting byField(String field) {
        return new TableRouting(List.of(), Optional.of(field));
    }

    /** @throws BadRecordException dynamic routing and the record names no table, or not a valid table name */
    public List<String> tablesFor(DecodedRecord record) throws BadRecordException {
        if (routeField.isEmpty()) return tables;
        String field = routeField.get();
        String table = record.fieldText(field).orElseThrow(() -> new BadRecordException(
                "no table to route to: the record has no text field '" + field + "' (dynamic_route_field)"));
        if (!validTableName(table)) {
            throw new BadRecordException("field '" + field + "' names no table: '" + table
                    + "' is not <namespace>.<table>");
        }
        return List.of(table);
    }

    /** {@code namespace.table}: a non-empty namespace (dots allowed: nested), then a non-empty table name. */
    public static boolean validTableName(String name) {
        int dot = name.lastIndexOf('.');
        return dot > 0 && dot < name.length() - 1 && !name.contains("..") && !name.startsWith(".")
                && name.chars().noneMatch(c -> c < 0x20 || c == '/');
    }

    private static void requireTableName(String name) {
        if (!validTableName(name)) {
            throw new IllegalArgumentException("table '" + name + "' is not <namespace>.<table>");
        }
    }
}
