package dev.iggysink.application.service;

import java.lang.System.Logger.Level;

/**
 * Keeps the memory budget inside the heap. The budget counts the bytes of buffered records, or the encoder's buffer
 * where it runs ahead of them, and a sealed file is uploaded from that same buffer (no second copy); on top of it
 * the heap holds a poll's records while they are encoded, gzip's or Parquet's output next to their input, and the
 * collector's headroom — at most {@value #HEAP_PER_BUDGET_BYTE} bytes of heap per byte of budget, measured
 * (docs/performance-history.md, "Goals of issue 14, previous round"), on top of {@value #BASELINE_MIB} MiB the
 * process needs with nothing buffered (clients, pools, classes). A budget the heap cannot hold is lowered at start,
 * with a warning, instead of ending in an OutOfMemoryError that a supervisor would restart into the same death.
 */
public final class HeapFit {
    private static final System.Logger LOG = System.getLogger(HeapFit.class.getName());
    static final int HEAP_PER_BUDGET_BYTE = 2;
    static final long BASELINE_MIB = 96;
    /** Below this the sink still works, one small file at a time. */
    static final long FLOOR = 4L << 20;

    private HeapFit() {
    }

    /**
     * With open files off the heap (json_lines, json_array and raw with a buffer directory) the heap holds at most 448 KiB of
     * each open file; what scales with the budget is the polls (a poll holds at most a quarter of the budget, and
     * one is read ahead while another is encoded): half a byte of heap per byte of budget, on top of
     * {@value #DISK_BASELINE_MIB} MiB (figures: docs/performance.md, "Figures behind constants without a decision
     * record").
     */
    static final long DISK_BASELINE_MIB = 40;

    /** The largest budget {@code maxHeap} can hold. */
    static long allowed(long maxHeap) {
        return allowed(maxHeap, false);
    }

    static long allowed(long maxHeap, boolean filesOnDisk) {
        if (filesOnDisk) return Math.max(FLOOR, 2 * (maxHeap - (DISK_BASELINE_MIB << 20)));
        long usable = maxHeap - (BASELINE_MIB << 20);
        return Math.max(FLOOR, usable / HEAP_PER_BUDGET_BYTE);
    }

    /**
     * {@code configured}, or less with a warning when {@code maxHeap} cannot hold it. The table sink uses it too: its
     * rows are Java objects on the heap until Parquet is written, so the rule for files on the heap applies.
     */
    public static long budget(String sink, long configured, long maxHeap) {
        return budget(sink, configured, maxHeap, false);
    }

    /** As {@link #budget(String, long, long)}; {@code filesOnDisk}: open files are written elsewhere as they grow. */
    static long budget(String sink, long configured, long maxHeap, boolean filesOnDisk) {
        long allowed = allowed(maxHeap, filesOnDisk);
        if (maxHeap == Long.MAX_VALUE || configured <= allowed) return configured;
        String need = filesOnDisk ? "half the budget plus " + DISK_BASELINE_MIB + " MiB, its open files being on disk"
                : "about " + HEAP_PER_BUDGET_BYTE + " times the budget plus " + BASELINE_MIB + " MiB";
        LOG.log(Level.WARNING, "sink " + sink + ": max_buffered_bytes = " + configured + " does not fit a heap of "
                + (maxHeap >> 20) + " MiB (it needs " + need + "); using " + allowed + " bytes ("
                + (allowed >> 20) + " MiB). Give the JVM more heap (-Xmx) or set max_buffered_bytes lower to silence"
                + " this.");
        return allowed;
    }
}
