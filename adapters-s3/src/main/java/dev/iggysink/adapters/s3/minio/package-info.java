/**
 * The {@link dev.iggysink.application.port.out.ObjectStore} over the MinIO Java client 8.6 (OkHttp 5). MinIO types
 * stay inside this package; failures leave it as {@link dev.iggysink.application.port.out.StoreException}.
 */
package dev.iggysink.adapters.s3.minio;
