package dev.iggysink.application.settings;

/** {@code errors_tolerance}: NONE halts the partition at a bad record; ALL dead-letters it and goes on. */
public enum ErrorTolerance { NONE, ALL }
