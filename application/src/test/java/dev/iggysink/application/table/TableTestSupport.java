package dev.iggysink.application.table;

import java.util.ArrayList;
import java.util.List;

/** Small helpers the table sink's tests share. */
final class TableTestSupport {
    private TableTestSupport() {
    }

    /** The offsets {@code from} to {@code to}, both included. */
    static List<Long> range(long from, long to) {
        List<Long> out = new ArrayList<>();
        for (long o = from; o <= to; o++) out.add(o);
        return out;
    }
}
