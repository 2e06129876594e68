package planted.r7ok.domain;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;

public class InjectedTime {
    private final Clock clock;

    public InjectedTime(Clock clock) {
        this.clock = clock;
    }

    public Instant instant() {
        return clock.instant();
    }

    public LocalDateTime local() {
        return LocalDateTime.now(clock);
    }
}
