/** Inbound ports: what the outside may ask of a running sink. */
package dev.iggysink.application.port.in;
