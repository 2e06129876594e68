package dev.iggysink.application.service;

import java.util.Optional;

import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.domain.rotation.RotationPolicy;

/**
 * A run claim a partition's files follow, its member's own or another member's. Of count cuts
 * (docs/adr/0020-run-claims.md): from {@code start} to {@code end} every file ends where a stretch of {@code stride}
 * offsets from start ends (or where its records end, when the stretch's last records were dead-lettered), whatever
 * the rotation policy, a flush or memory pressure would say. Of size cuts (docs/adr/0022-run-claims-of-size-cuts.md):
 * {@code rule} as its claim names it and the {@code limits} it cuts by; from start every file ends where those limits
 * are reached, and a file whose cut would lie past end is not the run's (it is claimed at its start).
 */
record RunCut(long start, long stride, long end, String rule, RotationPolicy limits) {

    static RunCut ofStrides(long start, long stride, long end) {
        return new RunCut(start, stride, end, null, null);
    }

    static RunCut ofSizeCuts(long start, long end, String rule, RotationPolicy limits) {
        return new RunCut(start, -1, end, rule, limits);
    }

    boolean bySize() {
        return rule != null;
    }

    boolean holds(long offset) {
        return offset >= start && offset <= end;
    }

    /** The last offset of the run's stretch holding {@code offset} (of a run of size cuts: the run's end). */
    long cellEnd(long offset) {
        if (bySize()) return end;
        return Math.min(end, start + ((offset - start) / stride + 1) * stride - 1);
    }

    String describe() {
        return bySize() ? "the size rule " + rule : stride + " offsets each";
    }

    /**
     * The rule a run claim of a member's size cuts names: its codec's {@link RecordCodec#sizeRule} and the rotation's
     * limits; empty when the codec has none or a record-time span could cut elsewhere.
     */
    static Optional<String> sizeRule(RecordCodec codec, RotationPolicy policy) {
        if (policy.maxBytes().isEmpty() || policy.maxRecordSpan().isPresent()) return Optional.empty();
        return codec.sizeRule().map(codecRule -> codecRule + ";size=" + policy.maxBytes().getAsLong() + ";count="
                + (policy.maxRecords().isPresent() ? Long.toString(policy.maxRecords().getAsLong()) : "-"));
    }

    /**
     * The limits a run claim's {@code rule} cuts by, for a member whose codec counts records as its maker's did (the
     * same codec rule; the limits may differ, they are the run's); empty otherwise.
     */
    static Optional<RotationPolicy> limitsOf(RecordCodec codec, String rule) {
        Optional<String> mine = codec.sizeRule();
        String[] parts = rule.split(";");
        if (mine.isEmpty() || parts.length != 3 || !parts[0].equals(mine.get()) || !parts[1].startsWith("size=")
                || !parts[2].startsWith("count=")) {
            return Optional.empty();
        }
        try {
            long size = Long.parseLong(parts[1].substring(5));
            String count = parts[2].substring(6);
            RotationPolicy limits = RotationPolicy.bySize(size);
            return Optional.of(count.equals("-") ? limits : limits.withMaxRecords(Long.parseLong(count)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
