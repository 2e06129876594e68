package dev.iggysink.adapters.s3;

import dev.iggysink.application.settings.StorageClient;

/** {@link dev.iggysink.adapters.s3.aws.AwsS3ObjectStore} on a real MinIO. */
class AwsS3ObjectStoreIT extends MinioContract {
    @Override
    protected StorageClient client() {
        return StorageClient.AWS;
    }
}
