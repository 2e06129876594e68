package dev.iggysink.application.port.out;

import dev.iggysink.domain.message.SinkRecord;
import java.util.Optional;

/** A record whose payload was decoded per its stream's schema and transformed; opaque outside the codec. */
public interface DecodedRecord {
    SinkRecord source();

    /**
     * The text of a field of a JSON-object payload by dotted path ({@code user.id}), for {@code {field:...}} path
     * variables; empty when the payload is not an object or the field is missing or not a scalar.
     */
    Optional<String> fieldText(String dottedPath);

    /**
     * The payload as a JSON document after the connector file's transforms, as bytes: what a table row is made from.
     * The delivered bytes when nothing changed them.
     */
    default byte[] json() {
        return source().payload();
    }
}
