package dev.iggysink.adapters.s3;

/** Which adapter talks to the store. */
public enum StorageClient { AWS, MINIO }
