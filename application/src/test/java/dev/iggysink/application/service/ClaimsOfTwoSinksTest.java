package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.domain.message.PartitionRef;
import org.junit.jupiter.api.Test;

/**
 * Two sinks archive one topic into one bucket under one prefix (issue 43, item 2): another consumer group, another
 * path_template, another format. A claim decides the cut of its own sink only: before, sink X took sink Y's claim of
 * 0-99 for its own ("same cut") and removed it after its commit, so Y's next owner found no claim, cut another range,
 * and Y's late PUT of 0-99 put offsets in two of Y's objects.
 */
class ClaimsOfTwoSinksTest {
    private static final PartitionRef P = new PartitionRef("application_logs", "api_requests", 0);
    private static final String STAMP = "0/0/1773600000000000";

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final Claims root = new Claims(store, "iggy/raw");
    private final Claims sinkY = root.in(Claims.space("archive", OutputSettings.jsonLines("iggy/raw", "{topic}/{date}"),
            "jsonl"));
    private final Claims sinkX = root.in(Claims.space("audit-copy", OutputSettings.jsonLines("iggy/raw",
            "{stream}/{topic}/{date}/{hour}"), "jsonl"));

    /** The key of a claim of the sinks {@link TestSettings} builds. */
    static String claimOfTestSink(PartitionRef partition, long first) {
        SinkSettings test = TestSettings.countRotation(TestSettings.stream("s", "t"), 1);
        return Claims.key("iggy/raw", Claims.space("sink-test", test.output(), "jsonl"), partition, first);
    }

    @Test
    void a_claim_of_one_sink_neither_decides_nor_is_removed_by_another() throws StoreException {
        assertThat(sinkY.claim(P, 0, 99, "iggy/raw/y/00000-0-99.jsonl", STAMP).outcome())
                .isEqualTo(Claims.Outcome.CREATED);
        // Sink X cuts the same range: its claim is its own, not Y's "same cut".
        assertThat(sinkX.claim(P, 0, 99, "iggy/raw/x/00000-0-99.jsonl", STAMP).outcome())
                .as("sink X's claim of 0-99 beside sink Y's").isEqualTo(Claims.Outcome.CREATED);
        // X commits and removes its claim: Y's next owner still finds Y's cut.
        sinkX.remove(sinkX.key(P, 0));
        assertThat(sinkY.claimedLast(P, 0, STAMP)).as("sink Y's claim after sink X removed its own").hasValue(99);
        // Nor does Y's claim force or block another cut of X.
        assertThat(sinkX.claim(P, 0, 49, "iggy/raw/x/00000-0-49.jsonl", STAMP).outcome())
                .isEqualTo(Claims.Outcome.CREATED);
        assertThat(sinkX.claimedLast(P, 0, STAMP)).hasValue(49);
        assertThat(sinkY.claimedLast(P, 0, STAMP)).hasValue(99);
    }

    private static OutputSettings zoned(OutputSettings o, String zone) {
        return new OutputSettings(o.prefix(), o.pathTemplate(), o.format(), o.compression(), o.includeMetadata(),
                o.includeHeaders(), java.time.ZoneId.of(zone), o.avroSchemaJson(), o.parquetCodec(), o.avroCodec(),
                o.missingFieldPlaceholder());
    }

    @Test
    void a_claim_key_differs_by_everything_that_shapes_object_keys_and_keeps_the_lifecycle_prefix() {
        OutputSettings json = OutputSettings.jsonLines("iggy/raw", "{topic}");
        String base = Claims.space("g", json, "jsonl");
        assertThat(Claims.space("g", json, "jsonl")).as("stable").isEqualTo(base);
        assertThat(Claims.space("other-group", json, "jsonl")).isNotEqualTo(base);
        assertThat(Claims.space("g", OutputSettings.jsonLines("iggy/raw", "{stream}/{topic}"), "jsonl"))
                .isNotEqualTo(base);
        assertThat(Claims.space("g", json, "jsonl.gz")).isNotEqualTo(base);
        OutputSettings dated = OutputSettings.jsonLines("iggy/raw", "{topic}/{date}");
        assertThat(Claims.space("g", zoned(dated, "Europe/Paris"), "jsonl"))
                .isNotEqualTo(Claims.space("g", dated, "jsonl"));
        assertThat(Claims.space("g", zoned(json, "Etc/UTC"), "jsonl")).as("the same zone by another name")
                .isEqualTo(Claims.space("g", zoned(json, "UTC"), "jsonl"));
        assertThat(root.in(base).key(P, 7)).startsWith("iggy/raw/_claims/").endsWith("/application_logs/api_requests/"
                + "00000-00000000000000000007.claim").isNotEqualTo(root.in(Claims.space("h", json, "jsonl")).key(P, 7));
    }
    /**
     * Review finding 2: members of one sink whose files differ only in what never reaches a key must claim in one
     * space. Keys trim the template's outer slashes, and a zone or placeholder the template does not use renders
     * nothing.
     */
    @Test
    void members_whose_settings_write_the_same_keys_claim_in_one_space() {
        OutputSettings plain = OutputSettings.jsonLines("iggy/raw", "{stream}/{topic}");
        String base = Claims.space("g", plain, "jsonl");
        assertThat(Claims.space("g", OutputSettings.jsonLines("iggy/raw", "{stream}/{topic}/"), "jsonl"))
                .as("a trailing slash").isEqualTo(base);
        assertThat(Claims.space("g", OutputSettings.jsonLines("iggy/raw", "/{stream}/{topic}"), "jsonl"))
                .as("a leading slash").isEqualTo(base);
        assertThat(Claims.space("g", zoned(plain, "Europe/Paris"), "jsonl")).as("a zone no variable renders")
                .isEqualTo(base);
        assertThat(Claims.space("g", placeheld(plain, "none"), "jsonl")).as("a placeholder no field renders")
                .isEqualTo(base);
        OutputSettings fields = OutputSettings.jsonLines("iggy/raw", "{topic}/{field:tenant}");
        assertThat(Claims.space("g", placeheld(fields, "none"), "jsonl")).as("a placeholder a field renders")
                .isNotEqualTo(Claims.space("g", fields, "jsonl"));
        assertThat(Claims.space("g", OutputSettings.jsonLines("iggy/raw", "{stream}//{topic}"), "jsonl"))
                .as("a slash inside the template is part of the key").isNotEqualTo(base);
    }

    private static OutputSettings placeheld(OutputSettings o, String placeholder) {
        return new OutputSettings(o.prefix(), o.pathTemplate(), o.format(), o.compression(), o.includeMetadata(),
                o.includeHeaders(), o.timezone(), o.avroSchemaJson(), o.parquetCodec(), o.avroCodec(), placeholder);
    }
}
