package dev.iggysink.adapters.s3;


class MinioObjectStoreOnS3ProxyTest extends S3ProxyContract {
    @Override
    protected StorageClient client() {
        return StorageClient.MINIO;
    }
}
