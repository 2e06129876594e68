package dev.iggysink.adapters.s3;

import dev.iggysink.application.settings.StorageClient;

class MinioObjectStoreOnS3ProxyTest extends S3ProxyContract {
    @Override
    protected StorageClient client() {
        return StorageClient.MINIO;
    }
}
