package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UploadTallyTest {
    private final UploadTally tally = new UploadTally();

    @Test
    void an_upload_counts_until_it_ends() {
        tally.handedOver();
        tally.handedOver();
        assertThat(tally.outstanding()).isEqualTo(2);

        tally.ended(0, true);
        assertThat(tally.outstanding()).isEqualTo(1);
        assertThat(tally.progressing()).isEqualTo(1);
    }

    @Test
    void a_retrying_upload_stalls_the_partition_and_does_not_count_as_progressing_until_it_ends() {
        tally.handedOver();
        tally.handedOver();
        tally.retrying(100);
        assertThat(tally.stalled()).isTrue();
        assertThat(tally.progressing()).isEqualTo(1);

        tally.ended(100, true);
        assertThat(tally.stalled()).isFalse();
        assertThat(tally.progressing()).isEqualTo(1);
    }

    @Test
    void a_new_generation_is_not_stalled_by_an_old_upload_which_still_counts_until_it_ends() {
        tally.handedOver();
        tally.retrying(0);
        tally.newGeneration();
        assertThat(tally.stalled()).isFalse();
        assertThat(tally.outstanding()).isEqualTo(1);

        // The new generation's file starting at the same offset is retrying; the old one's end must not clear it.
        tally.handedOver();
        tally.retrying(0);
        tally.ended(0, false);
        assertThat(tally.stalled()).isTrue();
        assertThat(tally.outstanding()).isEqualTo(1);
    }
}
