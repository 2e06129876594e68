/**
 * An in-JVM Apache Iggy 0.8 broker speaking the TCP binary protocol, plus small helpers for tests.
 *
 * <p>{@link dev.iggysink.testkit.iggy.EmbeddedIggyServer} keeps everything in memory and copies the 0.8 server's
 * observable behaviour (framing, status codes, byte layouts, consumer-group rebalancing), checked by the conformance
 * tests that also run against a real server, so that adapter tests can exercise the real Java client without a Rust server.
 * {@link dev.iggysink.testkit.iggy.IggyProducer} seeds data through the real blocking client, and
 * {@link dev.iggysink.testkit.iggy.IggyEndpoint} lets a suite run against a real server when {@code IGGY_TCP_ADDRESS}
 * is set.
 *
 * <p>Nothing here may be used by production code: this package is test infrastructure only, and the broker's
 * package-private classes (wire codec, catalogue, rebalancer) are not an API.
 */
package dev.iggysink.testkit.iggy;
