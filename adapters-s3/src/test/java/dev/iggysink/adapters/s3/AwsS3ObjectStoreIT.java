package dev.iggysink.adapters.s3;


/** {@link dev.iggysink.adapters.s3.aws.AwsS3ObjectStore} on a real MinIO. */
class AwsS3ObjectStoreIT extends MinioContract {
    @Override
    protected StorageClient client() {
        return StorageClient.AWS;
    }
}
