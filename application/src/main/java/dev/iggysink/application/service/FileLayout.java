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

    String prefix() {
        return output.prefix();
    }
}
