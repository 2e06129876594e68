/**
 * The bookkeeping of a file being filled ({@code OpenFile}) and of a file that is complete ({@code SealedFile}):
 * offsets, record time, sizes. The encoded bytes live with the caller; this package never holds payloads.
 */
package dev.iggysink.domain.buffer;
