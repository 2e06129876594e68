/**
 * A message's payload as the codec sees it: decoders per stream schema (json, raw, text, proto, flat_buffer, avro), the connector SDK's transforms, and the record a file encoder consumes.
 */
package dev.iggysink.adapters.format.payload;
