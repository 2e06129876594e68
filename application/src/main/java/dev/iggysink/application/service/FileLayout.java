package dev.iggysink.application.service;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.LateRecords;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeyRules;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import java.util.Optional;

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
        if (firstOffsetKeys()) {
            return ObjectKey.ofFirst(output.prefix(), directory, partition.partitionId(), first, extension);
        }
        return ObjectKey.of(output.prefix(), directory, partition.partitionId(), first, last, extension);
    }

    /**
     * Whether keys name only the first offset ({@link KeyLayout#FIRST_OFFSET}): then the data PUT is the file's
     * claim, and the key of a file starting at an offset is known without listing.
     */
    boolean firstOffsetKeys() {
        return output.keyLayout() == KeyLayout.FIRST_OFFSET;
    }

    /**
     * Why no store could hold a file of {@code partition} in {@code directory} starting at {@code first}, or empty:
     * its key is longer than S3 allows (offsets are fixed-width, so any range gives the length), or its path has a
     * segment no supported store accepts ({@link KeyRules}: a {@code {field:...}} value of {@code ..}, {@code .} or
     * empty renders one). A record that would open such a file is a bad record.
     */
    Optional<String> keyProblem(String directory, PartitionRef partition, long first) {
        String key = key(directory, partition, first, first);
        int keyBytes = KeyRules.keyBytes(key);
        if (keyBytes > KeyRules.MAX_KEY_BYTES) {
            return Optional.of("its object key would be " + keyBytes + " bytes; S3 allows at most "
                    + KeyRules.MAX_KEY_BYTES + " (the path_template renders " + directory.length()
                    + " characters for it)");
        }
        // The file name is fixed (PPPPP-first-last.ext, or shorter); only the path before it can hold a refused segment.
        return KeyRules.segmentProblem(key.substring(0, Math.max(0, key.lastIndexOf('/'))))
                .map(problem -> "its object key's path " + problem);
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

    /** The folder under the topic's own part of the template that holds late records ({@code late_path}). */
    static final String LATE = "late";

    /** Whether late records go to {@link #lateDirectory} (markers on and {@code late_records = "late_path"}). */
    boolean latePath() {
        return output.completionMarker().isPresent() && output.lateRecords() == LateRecords.LATE_PATH;
    }

    /**
     * Where a late record's file goes instead of {@code directory}: {@code late/} inserted after the template's
     * fixed part ({@code events/{stream}/{topic}/} and the like), so the folder of the window follows it
     * ({@code events/s/t/late/2026-12-05/13/}) and whatever lists the topic's objects (audit, the self-audit) lists
     * them too.
     */
    String lateDirectory(PartitionRef partition, String directory) {
        String d = ObjectKey.trimSlashes(directory);
        String fixed = template.fixedPrefix(partition.stream(), partition.topic());
        String head = ObjectKey.trimSlashes(fixed.substring(0, fixed.lastIndexOf('/') + 1));
        if (!head.isEmpty() && d.startsWith(head + "/")) {
            return head + "/" + LATE + "/" + d.substring(head.length() + 1);
        }
        return d.isEmpty() ? LATE : LATE + "/" + d;
    }
}
