package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar (built by {@code package}, checked by failsafe after it) ships Avro and Parquet but no Hadoop:
 * hadoop-common is only {@code provided} for javac and test-scoped for the Parquet reader, and a Hadoop that slipped
 * in through a transitive dependency would add tens of MiB and a second logging and Guava stack. It ships no test
 * infrastructure either: the in-JVM broker and s3proxy belong to the demo's own jar (demo/).
 */
class FatJarContentsIT {
    private static List<String> entries;

    @BeforeAll
    static void readJar() throws IOException {
        // Relative to the bootstrap module directory, where failsafe runs.
        Path jar = Paths.get("target", "iggy-s3-sink.jar");
        assertThat(jar).as("shaded jar; run `mvn package` first").exists();
        assertThat(Files.size(jar)).isPositive();
        try (JarFile file = new JarFile(jar.toFile())) {
            entries = file.stream().map(ZipEntry::getName).toList();
        }
    }

    /**
     * The object sink writes Parquet without Hadoop, but Iceberg's Parquet writer (the table sink) builds a Hadoop
     * {@code Configuration} (ADR 0014) and its Parquet reader (the table {@code audit}) names mapreduce's input
     * format: hadoop-common and mapreduce-client-core are shipped, and nothing of HDFS or YARN.
     */
    @Test
    void hadoop_is_shipped_only_as_far_as_icebergs_parquet_writer_and_reader_need_it() {
        assertThat(entries).contains("org/apache/hadoop/conf/Configuration.class",
                "org/apache/hadoop/mapreduce/lib/input/FileInputFormat.class");
        assertThat(entries).noneMatch(name -> name.startsWith("org/apache/hadoop/hdfs/")
                || name.startsWith("org/apache/hadoop/yarn/"));
    }

    @Test
    void no_test_infrastructure_is_shipped() {
        assertThat(entries).as("testkit (in-JVM broker, MinIO launcher)")
                .noneMatch(name -> name.startsWith("dev/iggysink/testkit/"));
        assertThat(entries).as("s3proxy").noneMatch(name -> name.startsWith("org/gaul/"));
        assertThat(entries).as("the demo").noneMatch(name -> name.startsWith("dev/iggysink/demo/"));
    }

    /**
     * The S3 adapter's SDK client runs on Apache HttpClient 5 (the SDK's Apache 4 client is deprecated); its
     * classes must be in the jar, or the SDK would look for another client on the class path at the first request.
     */
    @Test
    void the_s3_adapters_http_client_is_apache_httpclient_5() {
        assertThat(entries).contains("software/amazon/awssdk/http/apache5/Apache5HttpClient.class",
                "org/apache/hc/client5/http/impl/classic/CloseableHttpClient.class");
    }

    /**
     * Hadoop and Netty log through commons-logging, as Apache HttpClient 4 did. The real commons-logging falls back to
     * java.util.logging, where HttpClient 4's wire logger formatted every byte of every upload before the event was
     * dropped: the sink ran at a third of its speed. jcl-over-slf4j sends it all to SLF4J, whose level check stops it
     * early.
     */
    @Test
    void commons_logging_goes_to_slf4j_not_java_util_logging() {
        assertThat(entries).contains("org/apache/commons/logging/impl/SLF4JLogFactory.class");
        assertThat(entries).doesNotContain("org/apache/commons/logging/impl/Jdk14Logger.class");
    }

    /**
     * Logging is configured in code (LogbackConfigurator), registered as a service; a logback.xml that a
     * dependency brought in would take over from it, and reading XML costs the process some 600 classes.
     */
    @Test
    void logging_is_configured_by_the_service_in_code_not_by_an_xml_file() throws IOException {
        assertThat(entries).doesNotContain("logback.xml", "logback-test.xml");
        try (JarFile file = new JarFile(Paths.get("target", "iggy-s3-sink.jar").toFile())) {
            ZipEntry services = file.getEntry("META-INF/services/ch.qos.logback.classic.spi.Configurator");
            assertThat(services).isNotNull();
            String text = new String(file.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8);
            assertThat(text.lines().map(String::strip).filter(l -> !l.isEmpty()))
                    .containsExactly(LogbackConfigurator.class.getName());
        }
    }

    /** {@code java -jar} opens java.nio to Netty: its direct buffers are then neither zero-filled nor GC-freed. */
    @Test
    void the_manifest_opens_java_nio_to_netty() throws IOException {
        try (JarFile file = new JarFile(Paths.get("target", "iggy-s3-sink.jar").toFile())) {
            String opens = file.getManifest().getMainAttributes().getValue("Add-Opens");
            assertThat(opens).isNotNull();
            assertThat(opens.split(" ")).contains("java.base/java.nio", "java.base/jdk.internal.misc");
        }
    }

    /**
     * On Java 24 and later Netty leaves {@code sun.misc.Unsafe} alone; {@code java -jar} then enables native access
     * for the jar's classes, so Netty allocates and frees its direct buffers with libc's malloc and free instead.
     */
    @Test
    void the_manifest_enables_native_access_for_netty_on_java_24_and_later() throws IOException {
        try (JarFile file = new JarFile(Paths.get("target", "iggy-s3-sink.jar").toFile())) {
            assertThat(file.getManifest().getMainAttributes().getValue("Enable-Native-Access"))
                    .isEqualTo("ALL-UNNAMED");
        }
    }

    /**
     * The Glue catalog ({@code catalog_type = "glue"}) ships Iceberg's GlueCatalog, the SDK's Glue client (about 10 MB
     * of the jar) and the sink's factory that puts it on Apache HttpClient 5; DynamoDB's client, which Iceberg's
     * factory interface names, is compile-only and stays out.
     */
    @Test
    void the_glue_catalog_ships_with_its_client_and_dynamodb_does_not() {
        assertThat(entries).contains("org/apache/iceberg/aws/glue/GlueCatalog.class",
                "software/amazon/awssdk/services/glue/GlueClient.class",
                "dev/iggysink/adapters/iceberg/Apache5AwsClientFactory.class");
        assertThat(entries).noneMatch(name -> name.startsWith("software/amazon/awssdk/services/dynamodb/"));
    }

    @Test
    void parquet_writer_and_avro_are_shipped() {
        assertThat(entries).contains(
                "org/apache/parquet/avro/AvroParquetWriter.class",
                "org/apache/parquet/hadoop/ParquetWriter.class",
                "org/apache/parquet/conf/PlainParquetConfiguration.class",
                "org/apache/avro/file/DataFileWriter.class",
                "org/apache/avro/generic/GenericDatumWriter.class");
    }

    @Test
    void the_codecs_the_writers_use_are_shipped() {
        assertThat(entries).contains(
                "org/xerial/snappy/Snappy.class",
                "com/github/luben/zstd/Zstd.class",
                "io/airlift/compress/lz4/Lz4Compressor.class");
    }
}
