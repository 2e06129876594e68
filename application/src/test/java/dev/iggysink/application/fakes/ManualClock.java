package dev.iggysink.application.fakes;

import dev.iggysink.application.port.out.Sleeper;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A settable clock whose sleeper advances it (and yields briefly, so loops under test do not spin). */
public final class ManualClock implements InstantSource {
    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    @Override
    public Instant instant() {
        return now;
    }

    public synchronized void advance(Duration d) {
        now = now.plus(d);
    }

    public Sleeper sleeper() {
        return d -> {
            advance(d);
            Thread.sleep(1);
        };
    }
}
