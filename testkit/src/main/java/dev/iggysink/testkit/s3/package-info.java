/**
 * S3-compatible servers for tests and the demo: {@link dev.iggysink.testkit.s3.MinioServer} (a real MinIO as a child
 * process, or an external endpoint), {@link dev.iggysink.testkit.s3.S3ProxyServer} (s3proxy in this JVM) and
 * {@link dev.iggysink.testkit.s3.FaultProxy} (an HTTP relay that injects failures on a schedule).
 *
 * <p>Nothing here knows the sink's ports or settings: testkit must not depend on {@code application}, so adapters
 * and fakes of {@code ObjectStore} live with their modules. Everything binds to 127.0.0.1 only.
 */
package dev.iggysink.testkit.s3;
