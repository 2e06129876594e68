/**
 * The delivery protocol's rules: which offsets may be committed (nothing past a file that is not durable) and how
 * much memory may be held before polling pauses. Not thread-safe unless a class says so.
 */
package dev.iggysink.domain.delivery;
