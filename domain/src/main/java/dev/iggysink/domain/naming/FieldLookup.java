package dev.iggysink.domain.naming;

import java.util.Optional;

/** Reads a scalar field of a decoded record by dotted path, for {@code {field:...}} path variables. */
@FunctionalInterface
public interface FieldLookup {
    /** A lookup for records without fields (raw payloads, or templates that use none). */
    FieldLookup NONE = p -> Optional.empty();

    /** The field's text, or empty when it is missing or not a scalar. */
    Optional<String> field(String dottedPath);
}
