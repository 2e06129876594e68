package dev.iggysink.adapters.s3;

import dev.iggysink.application.settings.StorageClient;

/** {@link dev.iggysink.adapters.s3.minio.MinioObjectStore} on a real MinIO. */
class MinioObjectStoreIT extends MinioContract {
    @Override
    protected StorageClient client() {
        return StorageClient.MINIO;
    }
}
