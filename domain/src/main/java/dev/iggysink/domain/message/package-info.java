/**
 * What a record read from Iggy is: {@code SinkRecord}, its {@code PartitionRef}, id and headers. Plain values with
 * their invariants; no decoding, no I/O, nothing that knows about Iggy's wire format or the object store.
 */
package dev.iggysink.domain.message;
