/**
 * The table sink's adapter: Iceberg tables through a REST or JDBC catalog, Parquet data files written with Iceberg's
 * own writers, warehouse on S3 (S3FileIO) or the local file system.
 */
package dev.iggysink.adapters.iceberg;
