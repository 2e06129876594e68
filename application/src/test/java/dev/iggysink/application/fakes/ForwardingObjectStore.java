package dev.iggysink.application.fakes;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A store that passes every call to another: tests override the calls they watch or hold. */
public class ForwardingObjectStore implements ObjectStore {
    private final ObjectStore to;

    public ForwardingObjectStore(ObjectStore to) {
        this.to = to;
    }

    @Override
    public void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        to.put(key, content, contentType, metadata);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key) throws StoreException {
        return to.metadata(key);
    }

    @Override
    public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
        return to.create(key, content, metadata);
    }

    @Override
    public boolean create(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        return to.create(key, content, contentType, metadata);
    }

    @Override
    public Versioned getVersioned(String key) throws StoreException {
        return to.getVersioned(key);
    }

    @Override
    public boolean replace(String key, byte[] content, String contentType, String etag) throws StoreException {
        return to.replace(key, content, contentType, etag);
    }

    @Override
    public void delete(String key) throws StoreException {
        to.delete(key);
    }

    @Override
    public void delete(List<String> keys) throws StoreException {
        to.delete(keys);
    }

    @Override
    public void probe() throws StoreException {
        to.probe();
    }

    @Override
    public List<StoredObject> list(String prefix) throws StoreException {
        return to.list(prefix);
    }

    @Override
    public List<StoredObject> list(String prefix, String startAfter, String until) throws StoreException {
        return to.list(prefix, startAfter, until);
    }

    @Override
    public byte[] get(String key) throws StoreException {
        return to.get(key);
    }

    @Override
    public byte[] get(String key, long from, int length) throws StoreException {
        return to.get(key, from, length);
    }

    @Override
    public void close() {
        to.close();
    }
}
