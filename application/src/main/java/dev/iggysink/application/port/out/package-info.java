/**
 * Outbound ports: what the sink asks of the outside (Iggy, the object store, codecs, time). Each has its own
 * exception type saying whether a failure is retryable. No technology names here.
 */
package dev.iggysink.application.port.out;
