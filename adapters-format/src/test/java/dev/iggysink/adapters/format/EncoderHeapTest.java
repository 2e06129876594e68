package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.OutputFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The memory budget counts what an open file holds on the heap, so every encoder must say it. */
class EncoderHeapTest {
    @ParameterizedTest
    @EnumSource(value = OutputFormat.class, names = {"AVRO", "PARQUET"})
    void an_open_columnar_or_avro_file_reports_the_heap_it_holds_and_nothing_once_finished(OutputFormat format)
            throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(format, true, "snappy", "null"));
        FileEncoder file = codec.newFile();
        long recordBytes = file.append(codec.decode(WideSchema.record(0, WideSchema.FIRST)));
        long afterOne = file.heapBytes();
        assertThat(afterOne).isGreaterThanOrEqualTo(recordBytes);

        for (int i = 1; i < 20_000; i++) {
            recordBytes += file.append(codec.decode(WideSchema.record(i, i % 2 == 0 ? WideSchema.FIRST
                    : WideSchema.SECOND)));
        }
        // 20,000 records are more than any initial buffer: what they take must show.
        assertThat(file.heapBytes()).isGreaterThan(afterOne);
        if (format == OutputFormat.AVRO) assertThat(file.heapBytes()).isGreaterThanOrEqualTo(recordBytes);

        assertThat(file.finish().length()).isPositive();
        assertThat(file.heapBytes()).isZero();
    }
}
