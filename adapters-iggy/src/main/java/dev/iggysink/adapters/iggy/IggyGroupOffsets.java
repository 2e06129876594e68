package dev.iggysink.adapters.iggy;

import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.TopicMissingException;
import dev.iggysink.domain.message.PartitionRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iggy.exception.IggyTlsException;

/**
 * Reads a consumer group's stored offsets without joining the group (GET_CONSUMER_OFFSET needs no membership), so
 * the audit can run beside a live sink without triggering a rebalance, and {@code run} can check Iggy before it
 * consumes. One connection; every call bounded; every failure one line that says what is wrong. Retryable: Iggy
 * could not be reached or did not answer. Not retryable: the credentials, a missing stream or topic, a server that
 * does not speak the Iggy 0.8 protocol.
 */
public final class IggyGroupOffsets implements AutoCloseable {
    /** The last of the codes (from 40) an Iggy 0.8 server gives about the identity in a login. */
    private static final int LAST_LOGIN_CODE = 54;
    private final String stream;
    private final String topic;
    private final String group;
    private final Duration timeout;
    private final String endpoint;
    private final IggyConnection connection;

    public IggyGroupOffsets(IggySettings settings, String stream, String topic, String group, Duration timeout)
            throws SourceException {
        this(settings, stream, topic, group, timeout, new AsyncIggyConnection(settings, timeout));
    }

    IggyGroupOffsets(IggySettings settings, String stream, String topic, String group, Duration timeout,
                     IggyConnection connection) throws SourceException {
        this.stream = stream;
        this.topic = topic;
        this.group = group;
        this.timeout = timeout;
        this.endpoint = settings.host() + ":" + settings.port();
        this.connection = connection;
        try {
            connect();
            logIn(settings);
        } catch (SourceException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void connect() throws SourceException {
        try {
            connection.connect().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new SourceException("cannot reach Iggy at " + endpoint + ": no connection within "
                    + timeout.toMillis() + " ms", true, e);
        } catch (ExecutionException e) {
            if (IggyFailures.unwrap(e.getCause()) instanceof IggyClientShapeException reshaped) {
                // Another client version on the class path: no retry fixes it.
                throw new SourceException(reshaped.getMessage(), false, reshaped);
            }
            if (IggyFailures.unwrap(e.getCause()) instanceof IggyTlsException) {
                // A bad CA file or TLS setup does not fix itself by trying again.
                throw new SourceException("TLS setup for Iggy at " + endpoint + " failed: " + describe(e.getCause()),
                        false, e.getCause());
            }
            throw new SourceException("cannot reach Iggy at " + endpoint + ": " + describe(e.getCause()), true,
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceException("interrupted while connecting to Iggy at " + endpoint, true, e);
        }
    }

    private void logIn(IggySettings settings) throws SourceException {
        boolean token = settings.token().isPresent();
        String principal = token ? "the personal access token" : "user '" + settings.username() + "'";
        CompletableFuture<Void> login = token ? connection.loginWithToken(settings.token().get().reveal())
                : connection.login(settings.username(), settings.password().reveal());
        try {
            login.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // The connection was accepted and the login frame sent: an Iggy 0.8 server answers it at once, right or
            // wrong. Silence here means a server that does not read our frames as we write them, which is what an
            // Iggy server of another version does.
            login.cancel(false);
            throw notIggy08(e);
        } catch (ExecutionException e) {
            int code = IggyFailures.errorCode(e.getCause());
            if (code < 0) {
                throw new SourceException("connection to Iggy at " + endpoint + " failed while logging in: "
                        + describe(e.getCause()), true, e.getCause());
            }
            if (token && IggyFailures.rejectsToken(code)) {
                throw new SourceException("Iggy at " + endpoint + " rejected the credentials of " + principal + " ("
                        + IggyFailures.whyTokenRejected(code) + ", error " + code + ")", false, e.getCause());
            }
            if (IggyFailures.rejectsCredentials(code) || code == IggyFailures.USER_INACTIVE) {
                throw new SourceException("Iggy at " + endpoint + " rejected the credentials of " + principal + " ("
                        + IggyFailures.whyRejected(code) + ", error " + code + ")", false, e.getCause());
            }
            if (code >= IggyFailures.UNAUTHENTICATED && code <= LAST_LOGIN_CODE) {
                throw new SourceException("Iggy at " + endpoint + " refused the login of " + principal + " (error "
                        + code + ")", false, e.getCause());
            }
            // A 0.8 server answers a login with success or a code about who we are (40-54); anything else is a
            // server that read our frame as something else.
            throw new SourceException("the server at " + endpoint + " did not answer the Iggy 0.8 protocol (it"
                    + " answered error " + code + " to the login); this sink supports Iggy server 0.8.x", false,
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceException("interrupted while logging in to Iggy at " + endpoint, true, e);
        }
    }

    private SourceException notIggy08(Throwable cause) {
        return new SourceException("the server at " + endpoint + " did not answer the Iggy 0.8 protocol; this sink"
                + " supports Iggy server 0.8.x", false, cause);
    }

    /** The topic's partitions; fails (not retryable) when the stream or the topic is missing. */
    public List<PartitionRef> partitions() throws SourceException {
        if (!await(connection.streamExists(stream), "read stream " + stream)) {
            throw new TopicMissingException("stream '" + stream + "' does not exist on Iggy at " + endpoint, null);
        }
        List<Integer> ids = await(connection.topicPartitions(stream, topic), "read topic " + stream + "/" + topic)
                .orElseThrow(() -> new TopicMissingException("topic '" + topic + "' does not exist in stream '"
                        + stream + "' on Iggy at " + endpoint, null));
        List<PartitionRef> out = new ArrayList<>();
        for (int id : ids) out.add(new PartitionRef(stream, topic, id));
        return out;
    }

    public OptionalLong committedOffset(PartitionRef partition) throws SourceException {
        return await(connection.storedOffset(stream, topic, group, partition.partitionId()),
                "read the offset of " + partition);
    }

    private <T> T await(CompletableFuture<T> future, String what) throws SourceException {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new SourceException("no answer from Iggy at " + endpoint + " within " + timeout.toMillis()
                    + " ms to " + what, true, e);
        } catch (ExecutionException e) {
            int code = IggyFailures.errorCode(e.getCause());
            if (code == IggyFailures.STREAM_NOT_FOUND) {
                throw new TopicMissingException("stream '" + stream + "' does not exist on Iggy at " + endpoint,
                        e.getCause());
            }
            if (code == IggyFailures.TOPIC_NOT_FOUND) {
                throw new TopicMissingException("topic '" + topic + "' does not exist in stream '" + stream
                        + "' on Iggy at " + endpoint, e.getCause());
            }
            if (code < 0) {
                throw new SourceException("connection to Iggy at " + endpoint + " failed while trying to " + what
                        + ": " + describe(e.getCause()), true, e.getCause());
            }
            throw new SourceException("Iggy at " + endpoint + " answered error " + code + " to " + what, false,
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceException("interrupted while trying to " + what, true, e);
        }
    }

    private static String describe(Throwable failure) {
        Throwable t = IggyFailures.unwrap(failure);
        while (t.getMessage() == null && t.getCause() != null && t.getCause() != t) t = t.getCause();
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
    }

    /**
     * Closes the connection without waiting for it: the 0.8 client's close completes only after its event loop's
     * quiet period (2 s), which made every {@code run} start wait 2 s per checked topic for nothing. The socket is
     * closed at once either way; nothing read here depends on it.
     */
    @Override
    public void close() {
        try {
            connection.close();
        } catch (RuntimeException ignored) {
            // Closing is best effort: the connection is dropped either way.
        }
    }
}
