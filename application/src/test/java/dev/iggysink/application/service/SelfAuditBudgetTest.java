package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The self-audit keeps to its budget of store requests per minute, on the sink's clock. */
class SelfAuditBudgetTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:00:00Z"));
    private final InMemoryObjectStore objects = new InMemoryObjectStore();
    private final List<Instant> requests = new ArrayList<>();

    private final ForwardingObjectStore store = new ForwardingObjectStore(objects) {
        @Override
        public Optional<Map<String, String>> metadata(String key) throws StoreException {
            requests.add(clock.instant());
            return super.metadata(key);
        }

        @Override
        public List<StoredObject> list(String prefix) throws StoreException {
            requests.add(clock.instant());
            return super.list(prefix);
        }
    };

    @Test
    void no_minute_holds_more_requests_than_the_budget_and_a_burst_of_ten_seconds() throws Exception {
        PartitionRef p = new PartitionRef("s", "t", 0);
        List<SelfAudit.Committed> committed = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            String key = ObjectKey.of("raw", "s/t", 0, i * 10L, i * 10L + 9, "jsonl");
            Map<String, String> stamps = ObjectStamps.of(i * 10L, i * 10L + 9, 10, i * 10 + "/0/0",
                    (i * 10 + 9) + "/0/0");
            objects.seed(key, "x".getBytes(StandardCharsets.UTF_8), stamps);
            committed.add(new SelfAudit.Committed(p, key, i * 10L + 9, stamps));
        }
        PartitionStatus owned = new PartitionStatus("s", "t", 0, true, 1000, 999, 999, 0, 0, 0, 0, Optional.empty(),
                Optional.empty(), 0, Optional.empty(), false);
        int perMinute = 60;
        SelfAudit audit = new SelfAudit(store, List.of(new SelfAudit.Target("s", "t", "raw/", "_dlq", "raw/_dlq/s/t/",
                "")), () -> List.of(owned), perMinute, clock, clock.sleeper(), () -> false);
        audit.committed(committed);

        audit.round();
        audit.round();
        audit.round();
        audit.round();

        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().objectsVerified()).isEqualTo(100);
        assertThat(requests).hasSizeGreaterThan(100);
        assertThat(audit.status().requests()).isEqualTo(requests.size());
        for (Instant start : requests) {
            long inMinute = requests.stream().filter(t -> !t.isBefore(start)
                    && t.isBefore(start.plus(Duration.ofMinutes(1)))).count();
            assertThat(inMinute).as("requests in the minute from %s", start).isLessThanOrEqualTo(perMinute + 10);
        }
    }
}
