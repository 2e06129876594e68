/**
 * gzip and zstd of json and raw files, streamed into the buffer as the file grows.
 */
package dev.iggysink.adapters.format.compress;
