package dev.iggysink.application.port.out;

/** One object as listed by the store. */
public record StoredObject(String key, long size) {
}
