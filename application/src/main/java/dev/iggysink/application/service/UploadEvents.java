package dev.iggysink.application.service;

import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.SourceException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Carries what the upload pool reports (a failed attempt that will be retried, an upload's end) back to the consumer
 * loop's thread and applies it to the writers there, so that writers are touched by that thread only. Also hands the
 * writers' sealed files to the uploader, telling it which uploads are no longer wanted.
 */
final class UploadEvents implements Drain.Uploads {
    private static final System.Logger LOG = System.getLogger(UploadEvents.class.getName());

    private sealed interface Event permits Retrying, Completed {
    }

    private record Retrying(PartitionWriter writer, long generation, UploadJob job, String error) implements Event {
    }

    private record Completed(PartitionWriter writer, long generation, UploadResult result) implements Event {
    }

    private final Uploader uploader;
    private final MessageSource source;
    private final Controls controls;
    private final String name;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

    /** @param source reads the group's committed offsets for the uploads (thread-safe) */
    UploadEvents(Uploader uploader, Controls controls, String name, MessageSource source) {
        this.uploader = uploader;
        this.source = source;
        this.controls = controls;
        this.name = name;
    }

    /** How a writer hands its sealed files over; what the uploads report comes back through this queue. */
    PartitionWriter.HandOff handOff() {
        return new PartitionWriter.HandOff() {
            @Override
            public void upload(PartitionWriter writer, UploadJob job, long generation) {
                uploader.submit(job, new Uploader.Listener() {
                    @Override
                    public void retrying(UploadJob j, String error) {
                        events.add(new Retrying(writer, generation, j, error));
                    }

                    @Override
                    public void done(UploadResult result) {
                        events.add(new Completed(writer, generation, result));
                    }

                    @Override
                    public boolean current() {
                        return writer.generation() == generation;
                    }

                    @Override
                    public long committedOffset() throws SourceException {
                        return source.committedOffset(writer.partition()).orElse(-1);
                    }
                });
            }

            @Override
            public void generationEnded(PartitionWriter writer) {
                uploader.dropLost();
            }
        };
    }

    /** Applies everything reported so far. */
    @Override
    public void applyPending() {
        Event e;
        while ((e = events.poll()) != null) apply(e);
    }

    /** Waits up to {@code timeout} for one report and applies it; false when none came. */
    @Override
    public boolean awaitOne(Duration timeout) throws InterruptedException {
        Event e = events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (e == null) return false;
        apply(e);
        return true;
    }

    private void apply(Event e) {
        if (e instanceof Retrying r) {
            r.writer().retrying(r.job(), r.error(), r.generation());
        } else if (e instanceof Completed c) {
            c.writer().uploaded(c.result(), c.generation());
            if (c.result().outcome() == UploadResult.Outcome.SUPERSEDED && c.generation() == c.writer().generation()) {
                LOG.log(Level.INFO, "partition " + c.writer().partition() + ": " + c.result().error().orElse("")
                        + "; not writing them again: the partition is assigned anew from its committed offset");
                c.writer().restart(c.writer().lastCommitted(), false);
            }
            if (c.result().fatal()) {
                controls.fail(c.result().error().orElse("an upload of " + name + " ended by an error"));
            }
        }
    }
}
