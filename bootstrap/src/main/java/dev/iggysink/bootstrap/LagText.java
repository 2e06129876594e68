package dev.iggysink.bootstrap;

/**
 * The backlog as the status lines print it. A member that owns no partition has no lag to tell: before its first poll
 * is answered (or while every poll fails) the group has not told it which partitions are its own, and "lag 0" would
 * read as caught up.
 */
final class LagText {
    private LagText() {
    }

    /** {@code lag} records behind, or "n/a (no partition owned)" when {@code owned} is 0. */
    static String of(long lag, int owned) {
        return owned == 0 ? "n/a (no partition owned)" : Long.toString(lag);
    }
}
