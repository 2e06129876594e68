package dev.iggysink.application.settings;

/** {@code output_format}, with the key extension of each. */
public enum OutputFormat {
    JSON_LINES("jsonl", "application/x-ndjson"),
    JSON_ARRAY("json", "application/json"),
    RAW("bin", "application/octet-stream"),
    AVRO("avro", "application/avro"),
    PARQUET("parquet", "application/vnd.apache.parquet");

    private final String extension;
    private final String contentType;

    OutputFormat(String extension, String contentType) {
        this.extension = extension;
        this.contentType = contentType;
    }

    public String extension() {
        return extension;
    }

    public String contentType() {
        return contentType;
    }
}
