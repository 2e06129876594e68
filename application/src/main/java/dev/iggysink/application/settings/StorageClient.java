package dev.iggysink.application.settings;

/** Which adapter talks to the store. */
public enum StorageClient { AWS, MINIO }
