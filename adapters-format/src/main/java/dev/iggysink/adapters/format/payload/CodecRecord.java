package dev.iggysink.adapters.format.payload;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.JsonOut;
import dev.iggysink.adapters.format.json.RawJson;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.domain.message.SinkRecord;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A record with its decoded, transformed payload. Immutable once built (the codec hands it on and forgets it), but
 * for the tree of a passed-through payload, parsed on the first field lookup and kept for the next ones.
 */
public final class CodecRecord implements DecodedRecord {
    private final SinkRecord source;
    private final Payload payload;
    /** The parsed tree of a {@link Payload.Printed} payload, once a field was looked up; racy but idempotent. */
    private Object printedTree;

    public CodecRecord(SinkRecord source, Payload payload) {
        this.source = Objects.requireNonNull(source, "source");
        this.payload = Objects.requireNonNull(payload, "payload");
    }

    @Override
    public SinkRecord source() {
        return source;
    }

    public Payload payload() {
        return payload;
    }

    /**
     * Looks the path up in the value the file will show: a JSON document, or raw bytes that parse as JSON (they
     * are written as that value).
     */
    @Override
    public Optional<String> fieldText(String dottedPath) {
        Object v = root();
        for (String part : dottedPath.split("\\.", -1)) {
            if (!(v instanceof Map<?, ?> m)) return Optional.empty();
            v = m.get(part);
        }
        if (v == null || v instanceof Map || v instanceof List) return Optional.empty();
        return Optional.ofNullable(JsonOut.scalarText(v));
    }

    /** The payload the files show, as JSON bytes: a transformed document printed with its keys in their order. */
    @Override
    public byte[] json() {
        if (payload instanceof Payload.Printed printed) return printed.bytes();
        if (payload instanceof Payload.Raw raw) return raw.bytes();
        if (payload instanceof Payload.Text text) return text.text().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (payload instanceof Payload.JsonDoc doc) {
            ByteBuf out = new ByteBuf(256);
            try {
                JsonOut.value(out, doc.value(), JsonOut.Keys.INSERTION);
                return out.toByteArray();
            } finally {
                out.release();
            }
        }
        return source.payload();
    }

    private Object root() {
        if (payload instanceof Payload.JsonDoc doc) return doc.value();
        if (payload instanceof Payload.Raw raw) return RawJson.parseOrNull(raw.bytes());
        if (payload instanceof Payload.Printed printed) {
            if (printedTree == null) printedTree = RawJson.parseOrNull(printed.bytes());
            return printedTree;
        }
        return null;
    }

    @Override
    public String toString() {
        return "CodecRecord[" + source + ", " + payload.getClass().getSimpleName() + "]";
    }
}
