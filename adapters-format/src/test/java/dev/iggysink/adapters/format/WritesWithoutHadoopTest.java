package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs only in the {@code without-hadoop} surefire execution (see the pom), whose class path drops every Hadoop
 * artifact, as the shipped jar does: parquet and avro files must still be written, with every codec.
 */
class WritesWithoutHadoopTest {

    @ParameterizedTest
    @ValueSource(strings = {"snappy", "zstd", "gzip", "lz4_raw", "none"})
    void parquet_files_are_written_with_no_hadoop_class_on_the_class_path(String codecName) throws Exception {
        assertThatThrownBy(() -> Class.forName("org.apache.hadoop.conf.Configuration"))
                .isInstanceOf(ClassNotFoundException.class);
        byte[] bytes = write(WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, true, codecName, "null")));
        // "PAR1" at both ends: a whole file with its footer (reading it back needs Hadoop; ParquetOutputTest does).
        byte[] magic = "PAR1".getBytes(StandardCharsets.US_ASCII);
        assertThat(Arrays.copyOfRange(bytes, 0, 4)).isEqualTo(magic);
        assertThat(Arrays.copyOfRange(bytes, bytes.length - 4, bytes.length)).isEqualTo(magic);
        // The audit reads the offsets back from the footer, also without Hadoop.
        assertThat(ObjectOffsets.read(ObjectKey.of("", "", 1, 42, 43, "parquet"), bytes))
                .isEqualTo(new ObjectOffsets.Found(42, 43));
    }

    @ParameterizedTest
    @ValueSource(strings = {"null", "deflate", "snappy", "zstd"})
    void avro_files_are_written_and_read_with_no_hadoop_class_on_the_class_path(String codecName) throws Exception {
        byte[] bytes = write(WideSchema.codec(WideSchema.output(OutputFormat.AVRO, true, "snappy", codecName)));
        try (var reader = AvroOutputTest.open(bytes, WideSchema.readerModel())) {
            var read = new java.util.ArrayList<org.apache.avro.generic.GenericRecord>();
            reader.forEach(read::add);
            WideSchema.assertRoundTrip(read, true);
        }
    }

    private static byte[] write(RecordCodec codec) throws Exception {
        FileEncoder file = codec.newFile();
        file.append(codec.decode(WideSchema.record(42, WideSchema.FIRST)));
        file.append(codec.decode(WideSchema.record(43, WideSchema.SECOND)));
        return file.finish().toByteArray();
    }
}
