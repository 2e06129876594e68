/**
 * The bytes of one sealed file ({@link dev.iggysink.application.file.FileBytes}): the value an encoder hands over and
 * a store sends, with its release and off-heap source rules. A value type both ports carry, so it lives beside them,
 * not inside {@code port.out}, which holds only the ports' interfaces, records and exceptions.
 */
package dev.iggysink.application.file;
