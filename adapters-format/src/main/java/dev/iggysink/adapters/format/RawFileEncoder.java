package dev.iggysink.adapters.format;

import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.adapters.format.json.JsonOut;
import dev.iggysink.adapters.format.payload.CodecRecord;
import dev.iggysink.adapters.format.payload.Payload;
import dev.iggysink.application.settings.Compression;
import java.nio.charset.StandardCharsets;

/**
 * raw files: payload bytes back to back, no delimiter, no wrapper (both include flags ignored), as formatter.rs
 * {@code try_to_bytes}. Raw and text payloads are written as received; a JSON document is re-printed compactly the
 * way simd_json prints it (keys in document order, not sorted): a json stream's bytes are not kept.
 */
final class RawFileEncoder extends BufferedFileEncoder {

    RawFileEncoder(Compression compression) {
        this(compression, null);
    }

    /** @param spillTo where the open file is written as it grows; null keeps it on the heap */
    RawFileEncoder(Compression compression, BufferDirectory spillTo) {
        super(compression, spillTo);
    }

    @Override
    long encode(CodecRecord record) {
        int start = buf.length();
        Payload payload = record.payload();
        if (payload instanceof Payload.Raw raw) buf.write(raw.bytes());
        else if (payload instanceof Payload.Text text) buf.write(text.text().getBytes(StandardCharsets.UTF_8));
        else if (payload instanceof Payload.JsonDoc doc) JsonOut.value(buf, doc.value(), JsonOut.Keys.INSERTION);
        return buf.length() - start;
    }
}
