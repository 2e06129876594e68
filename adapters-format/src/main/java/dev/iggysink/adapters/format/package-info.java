/**
 * Payload decoding, transforms and file encoding for one stream: the {@code RecordCodec} port, byte-identical to the
 * Rust Iggy S3 sink (formatter.rs) and the connector SDK decoders/transforms it runs behind.
 *
 * <p>Entry point: {@link dev.iggysink.adapters.format.RecordCodecs}, with the json_lines, json_array and raw
 * encoders beside it. Sub-packages, each using only those after it: {@code columnar} (Avro and Parquet files),
 * {@code payload} (decoders, transforms, the record an encoder consumes), {@code compress} (gzip, zstd),
 * {@code json} (the JSON engine), {@code buffer} (heap chunks and the buffer directory). Their public types are
 * for this adapter only (architecture rule 5); bootstrap uses RecordCodecs, ObjectOffsets and BufferDirectory.
 *
 * <p>Why JSON is hand-written here ({@code Json}, {@code JsonOut}, {@code DoubleFormat}): the Rust sink prints its
 * wrapper with serde_json (no {@code preserve_order}: object keys come out sorted), floats with ryu (shortest digits,
 * {@code 1e16}, {@code 0.0001}, {@code 1e-7}), and parses {@code schema = json} with simd_json (integers beyond
 * i64/u64 are errors) but raw payloads with serde_json (they become floats, {@code -0} becomes {@code -0.0}). These
 * small differences decide the bytes, so the parser and printer make them explicit.
 *
 * <p>Avro and Parquet output ({@code AvroFileEncoder}, {@code ParquetFileEncoder}) convert each JSON payload to a
 * record of {@code avro_schema_json} ({@code JsonToAvro}; rules in its javadoc), add the {@code iggy_*} metadata
 * columns when asked ({@code AvroSchemas}), and build the file in memory. {@code include_headers} does not apply to
 * them (no column for headers yet). Parquet runs without Hadoop: see {@code ParquetFileEncoder} and
 * {@code ParquetCodecs}; Hadoop is a compile-only and test-only dependency, and the without-hadoop surefire run and
 * bootstrap's FatJarContentsIT keep it that way. {@code schema = avro} payloads are decoded by
 * {@code AvroPayloadDecoder}.
 *
 * <p>Schema changes: a codec is built once per stream from the settings, and a file encoder is one file; a new
 * schema takes a restart, and a restart seals every open file first, so no file ever mixes two schemas.
 *
 * <p>Must not live here: object keys and paths (domain.naming), rotation decisions (domain.rotation), uploads.
 */
package dev.iggysink.adapters.format;
