package dev.iggysink.adapters.s3;


class AwsS3ObjectStoreOnS3ProxyTest extends S3ProxyContract {
    @Override
    protected StorageClient client() {
        return StorageClient.AWS;
    }
}
