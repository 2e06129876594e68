package dev.iggysink.adapters.s3;

import dev.iggysink.application.settings.StorageClient;

class AwsS3ObjectStoreOnS3ProxyTest extends S3ProxyContract {
    @Override
    protected StorageClient client() {
        return StorageClient.AWS;
    }
}
