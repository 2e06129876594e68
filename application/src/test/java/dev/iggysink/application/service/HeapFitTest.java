package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.DeliverySettings;
import org.junit.jupiter.api.Test;

class HeapFitTest {
    private static final long MIB = 1L << 20;

    @Test
    void the_default_budget_stays_when_the_heap_holds_it() {
        assertThat(HeapFit.budget("s3", 256 * MIB, 6L * 1024 * MIB)).isEqualTo(256 * MIB);
        assertThat(HeapFit.budget("s3", 256 * MIB, 608 * MIB)).isEqualTo(256 * MIB);
    }

    @Test
    void the_default_budget_fits_the_launchers_heap_as_the_serial_collector_reports_it() {
        long launcherHeap = 247 * MIB; // Runtime.maxMemory() of -Xmx256m -XX:+UseSerialGC: one survivor space less
        assertThat(HeapFit.budget("s3", DeliverySettings.DEFAULT_MAX_BUFFERED_BYTES, launcherHeap))
                .isEqualTo(DeliverySettings.DEFAULT_MAX_BUFFERED_BYTES);
    }

    @Test
    void a_budget_the_heap_cannot_hold_is_lowered_to_what_it_can() {
        assertThat(HeapFit.budget("s3", 256 * MIB, 128 * MIB)).isEqualTo(16 * MIB);
        assertThat(HeapFit.budget("s3", 256 * MIB, 256 * MIB)).isEqualTo(80 * MIB);
        assertThat(HeapFit.budget("s3", 256 * MIB, 607 * MIB)).isLessThan(256 * MIB);
    }

    @Test
    void a_tiny_heap_still_gets_a_working_budget() {
        assertThat(HeapFit.budget("s3", 256 * MIB, 64 * MIB)).isEqualTo(HeapFit.FLOOR);
    }

    @Test
    void an_unbounded_heap_keeps_the_budget() {
        assertThat(HeapFit.budget("s3", 256 * MIB, Long.MAX_VALUE)).isEqualTo(256 * MIB);
    }

    @Test
    void with_open_files_on_disk_the_heap_holds_only_the_polls_so_a_small_heap_keeps_the_default_budget() {
        long smallHeap = 92 * MIB; // Runtime.maxMemory() of -Xmx96m -XX:+UseSerialGC
        assertThat(HeapFit.budget("s3", DeliverySettings.DEFAULT_MAX_BUFFERED_BYTES, smallHeap, true))
                .isEqualTo(DeliverySettings.DEFAULT_MAX_BUFFERED_BYTES);
        assertThat(HeapFit.budget("s3", DeliverySettings.DEFAULT_MAX_BUFFERED_BYTES, smallHeap, false))
                .as("the same heap with open files on the heap").isEqualTo(HeapFit.FLOOR);
        assertThat(HeapFit.budget("s3", 1024 * MIB, smallHeap, true)).isEqualTo(104 * MIB);
        assertThat(HeapFit.budget("s3", 256 * MIB, 32 * MIB, true)).isEqualTo(HeapFit.FLOOR);
    }
}
