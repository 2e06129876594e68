/**
 * What both S3 adapters share and that holds no SDK type: the write path ({@link S3WritePath}: single or
 * multipart put, abort on failure, the startup probe), the multipart plan, the bounded parallel part runner,
 * failure classification into {@link dev.iggysink.application.port.out.StoreException} and the object-option header
 * values. Public only because Java has no module-private visibility across packages; nothing outside
 * {@code dev.iggysink.adapters.s3..} may use it.
 */
package dev.iggysink.adapters.s3.support;
