package dev.iggysink.application.settings;

/** {@code file_rotation}: which threshold of the Rust sink applies. */
public enum FileRotation { SIZE, MESSAGES }
