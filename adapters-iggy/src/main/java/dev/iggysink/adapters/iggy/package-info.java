/**
 * The Iggy side of the hexagon: {@link dev.iggysink.adapters.iggy.IggyMessageSource} reads one topic as a member of
 * a consumer group over the Iggy 0.8 TCP client and stores the group's offsets only when asked to. Poll answers skip
 * the client's message objects: {@link dev.iggysink.adapters.iggy.PollResponseDecoder} reads the answer's bytes into
 * records.
 *
 * <p>Everything {@code org.apache.iggy} (and Netty) stays inside this package: the application sees
 * {@code SinkRecord}s, {@code Batch}es and {@code SourceException}s only. The seam {@code IggyConnection} exists so
 * the session logic (timeouts, rebuilds, ownership, monotonic commits) is tested without a broker; it must stay
 * package-private.
 */
package dev.iggysink.adapters.iggy;
