package dev.iggysink.adapters.format;

import dev.iggysink.adapters.format.json.CompactJson;
import dev.iggysink.adapters.format.payload.CodecRecord;
import dev.iggysink.adapters.format.payload.Payload;
import dev.iggysink.adapters.format.payload.PayloadDecoder;
import dev.iggysink.adapters.format.payload.PayloadTransforms;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.HeldRecords;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.domain.message.SinkRecord;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** decode → transforms → encoder factory, for one stream. Immutable and thread-safe. */
final class PipelineCodec implements RecordCodec {
    private final PayloadDecoder decoder;
    private final List<PayloadTransforms.Step> transforms;
    private final Supplier<FileEncoder> files;
    private final String extension;
    private final String contentType;
    private final boolean passThrough;
    private final Optional<String> sizeRule;

    /**
     * @param passThrough whether a JSON payload already in the printer's form may skip the tree (see
     *                    {@link Payload.Printed}): only when the payload is JSON or raw, there are no transforms and
     *                    the file is json_lines or json_array, the one consumer of such a payload
     */
    PipelineCodec(PayloadDecoder decoder, List<PayloadTransforms.Step> transforms, Supplier<FileEncoder> files,
                  OutputFormat format, Compression compression, boolean passThrough, Optional<String> sizeRule) {
        this.decoder = decoder;
        this.sizeRule = sizeRule;
        this.passThrough = passThrough && transforms.isEmpty()
                && (format == OutputFormat.JSON_LINES || format == OutputFormat.JSON_ARRAY);
        this.transforms = List.copyOf(transforms);
        this.files = files;
        this.extension = format.extension() + compression.suffix();
        // A compressed object is a gzip/zstd file (no Content-Encoding is set), so say that.
        this.contentType = switch (compression) {
            case NONE -> format.contentType();
            case GZIP -> "application/gzip";
            case ZSTD -> "application/zstd";
        };
    }

    @Override
    public DecodedRecord decode(SinkRecord record) throws BadRecordException {
        if (passThrough) {
            byte[] bytes = record.payload();
            int[] plan = CompactJson.check(bytes);
            if (plan != null) return new CodecRecord(record, new Payload.Printed(bytes, plan));
        }
        Payload payload;
        try {
            payload = decoder.decode(record.payload());
        } catch (PayloadDecoder.DecodeFailure e) {
            throw new BadRecordException("offset " + record.offset() + " of " + record.partition() + ": "
                    + e.getMessage(), e);
        }
        for (PayloadTransforms.Step step : transforms) payload = step.apply(payload);
        return new CodecRecord(record, payload);
    }

    @Override
    public FileEncoder newFile() {
        return files.get();
    }

    @Override
    public String extension() {
        return extension;
    }

    @Override
    public String contentType() {
        return contentType;
    }

    @Override
    public Optional<String> sizeRule() {
        return sizeRule;
    }

    @Override
    public HeldRecords held(ObjectStore store, StoredObject object) throws StoreException {
        return ObjectOffsets.held(store, object);
    }
}
