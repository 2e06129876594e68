/**
 * The JSON engine: parser and printers that match serde_json and simd_json byte for byte (why hand-written: the root package's documentation).
 */
package dev.iggysink.adapters.format.json;
