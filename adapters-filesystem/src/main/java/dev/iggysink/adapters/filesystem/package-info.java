/**
 * An {@link dev.iggysink.application.port.out.ObjectStore} over a directory: local disk or a mounted volume (NFS, a
 * Fuse-mounted bucket, a lake on shared storage). Only the JDK's file API is used; the rest of the sink sees the port
 * and {@link dev.iggysink.application.port.out.StoreException} alone.
 */
package dev.iggysink.adapters.filesystem;
