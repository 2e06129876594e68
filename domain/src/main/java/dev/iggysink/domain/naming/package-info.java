/**
 * Where a sealed file lands: path templates, sanitising, and the deterministic object key whose file name carries
 * the partition and the offset range. Keys must stay byte-identical to the Rust sink's for exactly-once.
 */
package dev.iggysink.domain.naming;
