package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.AdminConfig;
import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.CredentialsConfig;
import dev.iggysink.adapters.config.IggyConfig;
import dev.iggysink.adapters.config.StorageConfig;
import dev.iggysink.adapters.filesystem.DirectoryObjectStore;
import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.adapters.iggy.IggyMessageSource;
import dev.iggysink.adapters.iggy.IggySettings;
import dev.iggysink.adapters.s3.CredentialSettings;
import dev.iggysink.adapters.s3.ObjectStores;
import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.port.out.CodecFactory;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.service.SinkService;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.bootstrap.admin.AdminSettings;
import java.time.Duration;
import java.time.InstantSource;

/**
 * Wiring only: which adapter serves which port for one configured sink, and each adapter's settings unpacked from
 * the config file's value. No rules live here.
 */
final class SinkAssembly {
    /** Every Iggy call is bounded by this; the 0.8 client has no timeout of its own. */
    static final Duration IGGY_CALL_TIMEOUT = Duration.ofSeconds(10);

    private SinkAssembly() {
    }

    /** The store {@code storage_client} names: S3 (AWS SDK or MinIO client) or a directory. */
    static ObjectStore store(ConnectorConfig config) {
        if (config.storage() instanceof StorageConfig.Directory d) {
            return BenchConditionsOff.apply(new DirectoryObjectStore(d.directory()));
        }
        return BenchConditionsOff.apply(ObjectStores.create(s3((StorageConfig.S3) config.storage(),
                config.sink().delivery().uploadConcurrency())));
    }

    /** The S3 adapters' settings; the pipeline's upload concurrency also bounds a multipart upload's parts. */
    static StorageSettings s3(StorageConfig.S3 s, int uploadConcurrency) {
        return new StorageSettings(s.bucket(), s.region(), s.endpoint(), s.pathStyle(), s.accessKeyId(),
                s.secretAccessKey(), s.client() == StorageConfig.S3Client.MINIO ? StorageClient.MINIO
                : StorageClient.AWS, s.multipartThreshold(), s.multipartPartSize(), uploadConcurrency, s.sse(),
                s.sseKmsKeyId(), s.storageClass(), s.cannedAcl(), s.objectTags(), s.requestTimeout(),
                credentials(s.credentials()));
    }

    static CredentialSettings credentials(CredentialsConfig c) {
        return new CredentialSettings(c.profile(), c.credentialsFile(), c.roleArn(), c.externalId(), c.sessionName(),
                c.assumeRoleDuration(), c.stsEndpoint());
    }

    static IggySettings iggy(IggyConfig i) {
        return new IggySettings(i.host(), i.port(), i.username(), i.password(), i.token(), i.tlsEnabled(),
                i.tlsCaFile(), i.tlsDomain());
    }

    static AdminSettings admin(AdminConfig a) {
        return new AdminSettings(a.address(), a.token());
    }

    /** Where a store is, for messages: the S3 endpoint (or AWS and its region), or the directory. */
    static String storeEndpoint(StorageConfig storage) {
        if (storage instanceof StorageConfig.S3 s) return s.endpoint().orElse("AWS S3 (" + s.region() + ")");
        return storage.describe();
    }

    /** The streams' codecs; json_lines, json_array and raw files grow in {@code buffers} when it is not null. */
    static CodecFactory codecs(SinkSettings settings, BufferDirectory buffers) {
        boolean offHeap = buffers != null && RecordCodecs.buffersOnDisk(settings.output().format());
        return new CodecFactory() {
            @Override
            public RecordCodec forStream(StreamSettings stream) {
                return RecordCodecs.forStream(stream, settings.output(), settings.transforms(), buffers);
            }

            @Override
            public boolean openFilesOnHeap() {
                return !offHeap;
            }
        };
    }

    /** @param buffers where open files are written as they grow; null keeps them on the heap */
    static SinkService service(ConnectorConfig config, ObjectStore store, SinkMetrics metrics,
                               BufferDirectory buffers) {
        SinkSettings settings = config.sink();
        IggySettings iggy = iggy(config.iggy());
        return new SinkService(settings,
                (stream, topic, group) -> new IggyMessageSource(iggy, stream, topic, group, IGGY_CALL_TIMEOUT),
                codecs(settings, buffers),
                store, InstantSource.system(), duration -> Thread.sleep(duration.toMillis()), metrics);
    }
}
