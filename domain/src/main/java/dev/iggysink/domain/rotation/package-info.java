/**
 * When an open file is sealed: size, record count, record-time span (deterministic, so keys repeat after a crash)
 * and wall-clock schedule (not deterministic: at-least-once). Rules only; time always comes in as an argument.
 */
package dev.iggysink.domain.rotation;
