/**
 * Avro and Parquet files: JSON payloads converted by avro_schema_json, built in memory, Parquet without Hadoop.
 */
package dev.iggysink.adapters.format.columnar;
