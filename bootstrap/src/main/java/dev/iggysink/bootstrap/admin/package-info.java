/**
 * The admin HTTP endpoints of a running process: the status page at {@code /}, {@code /health}, {@code /status},
 * {@code /metrics} (Prometheus text via Micrometer) and the control endpoints {@code /flush}, {@code /pause},
 * {@code /resume}.
 *
 * <p>A driving adapter on Netty's HTTP codec (docs/adr/0004-admin-http-server-on-netty.md): it reads
 * {@code SinkService.status()} and calls its controls, nothing more. No pipeline rule lives here, and no Iggy or S3
 * type is touched: what the sinks do is only seen through the application's status records and {@code SinkMetrics}
 * callbacks.
 */
package dev.iggysink.bootstrap.admin;
