package planted.r11ok.application.port.out;

import planted.r11ok.application.file.Bytes;

/** What a port package may hold: an interface with a nested record and enum, its exception, its null object. */
public interface Store {
    Store NONE = new Store() {
        @Override
        public void put(String key, Bytes content) {
        }
    };

    void put(String key, Bytes content) throws Failed;

    record Stored(String key, long size) {
    }

    enum Kind { FILE, TABLE }

    final class Failed extends Exception {
        private static final long serialVersionUID = 1L;

        public Failed(String message) {
            super(message);
        }
    }
}
