package dev.iggysink.adapters.s3;

import dev.iggysink.adapters.s3.aws.AwsS3ObjectStore;
import dev.iggysink.adapters.s3.minio.MinioObjectStore;
import dev.iggysink.application.port.out.ObjectStore;

/** Builds the {@link ObjectStore} that {@link StorageSettings#client()} names. */
public final class ObjectStores {
    private ObjectStores() {
    }

    /** A new store; the caller owns it and must {@link ObjectStore#close()} it. */
    public static ObjectStore create(StorageSettings settings) {
        return switch (settings.client()) {
            case AWS -> new AwsS3ObjectStore(settings);
            case MINIO -> new MinioObjectStore(settings);
        };
    }
}
