/**
 * The {@link dev.iggysink.application.port.out.ObjectStore} over the AWS SDK v2 (sync client, Apache HTTP client).
 * AWS SDK types stay inside this package; failures leave it as
 * {@link dev.iggysink.application.port.out.StoreException}.
 */
package dev.iggysink.adapters.s3.aws;
