package dev.iggysink.adapters.s3;


/** {@link dev.iggysink.adapters.s3.minio.MinioObjectStore} on a real MinIO. */
class MinioObjectStoreIT extends MinioContract {
    @Override
    protected StorageClient client() {
        return StorageClient.MINIO;
    }
}
