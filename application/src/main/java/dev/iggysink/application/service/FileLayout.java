package dev.iggysink.application.service;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;

/** Where a record's file goes: the rendered directory, and the final key once the file's range is known. */
final class FileLayout {
    private final OutputSettings output;
    private final PathTemplate template;
    private final String extension;

    FileLayout(OutputSettings output, String extension) {
        this.output = output;
        this.template = PathTemplate.parse(output.pathTemplate());
        this.extension = extension;
    }

    String directory(PartitionRef partition, DecodedRecord record) {
        return template.render(partition, record.source().timestampMicros(), output.timezone(),
                record::fieldText, output.missingFieldPlaceholder());
    }

    String key(String directory, PartitionRef partition, long first, long last) {
        return ObjectKey.of(output.prefix(), directory, partition.partitionId(), first, last, extension);
    }

    /** S3's limit on the UTF-8 length of an object key. */
    static final int MAX_KEY_BYTES = 1024;

    /** The UTF-8 length of the key of a file in {@code directory} (offsets are fixed-width, so any range gives it). */
    int keyBytes(String directory, PartitionRef partition, long first) {
        return key(directory, partition, first, first).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    /**
     * The start every key of a file of {@code partition} beginning at {@code first} in {@code directory} shares:
     * {@code [prefix/]directory/PPPPP-FFFFFFFFFFFFFFFFFFFF-}. Listing it finds such a file whatever its last offset.
     */
    String keyStart(String directory, PartitionRef partition, long first) {
        String key = key(directory, partition, first, first);
        return key.substring(0, key.lastIndexOf('-') + 1);
    }

    String prefix() {
        return output.prefix();
    }
}
