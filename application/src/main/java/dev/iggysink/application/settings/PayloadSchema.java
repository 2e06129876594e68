package dev.iggysink.application.settings;

/** The {@code schema} of a {@code [[streams]]} entry: how payload bytes are decoded. */
public enum PayloadSchema { JSON, RAW, TEXT, PROTO, FLAT_BUFFER, AVRO }
