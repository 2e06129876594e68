/**
 * An open file's bytes: the chunked heap buffer (ByteBuf, ChunkPool) and the buffer directory on disk (BufferDirectory, SpillFile, LocalFile), from which a sealed file is sent. Knows nothing of formats.
 */
package dev.iggysink.adapters.format.buffer;
