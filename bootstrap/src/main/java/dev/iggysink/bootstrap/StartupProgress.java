package dev.iggysink.bootstrap;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each sink that is not running yet waits for, as {@code /health} and {@code /status} tell it while starting
 * ("waiting for Iggy at 10.0.0.5:8090 (cannot reach ...; 4 attempts, next in 8 s)") instead of "no sink is running".
 * Written by the thread that starts the sinks, read by the admin server's threads.
 */
final class StartupProgress {
    private final Map<String, String> waiting = new LinkedHashMap<>();
    private final boolean several;

    /** @param sinks the keys of every sink to start, in order; each is "starting" until told otherwise */
    StartupProgress(List<String> sinks) {
        this.several = sinks.size() > 1;
        for (String key : sinks) waiting.put(key, "starting");
    }

    /** A progress for a start that nobody watches (tests of the checks alone). */
    static StartupProgress unwatched() {
        return new StartupProgress(List.of());
    }

    synchronized void now(String sink, String what) {
        waiting.put(sink, what);
    }

    /** The sink runs (or its start ended): nothing to tell of it here any more. */
    synchronized void done(String sink) {
        waiting.remove(sink);
    }

    /** One reason per sink not running yet, named by its key when the process runs several. */
    synchronized List<String> reasons() {
        List<String> out = new ArrayList<>(waiting.size());
        waiting.forEach((key, what) -> out.add(several ? "sink " + key + ": " + what : what));
        return out;
    }
}
