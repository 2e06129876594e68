/**
 * The admin HTTP endpoints of a running process: {@code /health}, {@code /status}, {@code /metrics} (Prometheus
 * text via Micrometer) and the control endpoints {@code /flush}, {@code /pause}, {@code /resume}.
 *
 * <p>A driving adapter on the JDK's {@code com.sun.net.httpserver}: it reads {@code SinkService.status()} and calls
 * its controls, nothing more. No pipeline rule lives here, and no Iggy or S3 type is touched: what the sinks do is
 * only seen through the application's status records and {@code SinkMetrics} callbacks.
 */
package dev.iggysink.bootstrap.admin;
