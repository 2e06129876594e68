package dev.iggysink.testkit.iggy;

/**
 * A command failure answered with an Iggy status code; the connection stays open.
 *
 * <p>Stack traces are suppressed: these are expected protocol outcomes, not bugs, and the hot send path can raise them.
 */
final class BrokerError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final int INVALID_COMMAND = 3;
    static final int INVALID_FORMAT = 4;
    static final int INVALID_IDENTIFIER = 6;
    /** "Resource not found": also what a login with a personal access token nobody has gets. */
    static final int RESOURCE_NOT_FOUND = 20;
    static final int INVALID_SIZE_BYTES = 80;
    static final int UNAUTHENTICATED = 40;
    static final int INVALID_CREDENTIALS = 42;
    static final int INVALID_USERNAME = 43;
    static final int INVALID_PASSWORD = 44;
    static final int INVALID_PAT_NAME = 50;
    static final int PAT_ALREADY_EXISTS = 51;
    static final int PAT_LIMIT_REACHED = 52;
    static final int INVALID_PAT = 53;
    static final int STREAM_ID_NOT_FOUND = 1009;
    static final int STREAM_NAME_ALREADY_EXISTS = 1012;
    static final int INVALID_TOPIC_SIZE = 1019;
    static final int TOPIC_ID_NOT_FOUND = 2010;
    static final int TOPIC_NAME_ALREADY_EXISTS = 2013;
    static final int TOO_MANY_PARTITIONS = 2015;
    static final int PARTITION_NOT_FOUND = 3007;
    static final int NOT_RESOLVED_CONSUMER = 3022;
    static final int INVALID_MESSAGES_COUNT = 4009;
    static final int TOO_BIG_USER_HEADERS = 4017;
    static final int TOO_BIG_PAYLOAD = 4022;
    static final int INVALID_MESSAGE_SIZE = 4033;
    static final int NON_ZERO_INDEX_OFFSET = 4031;
    static final int NON_ZERO_INDEX_TIMESTAMP = 4032;
    static final int MISMATCHED_MESSAGES_SIZE = 4036;
    static final int INVALID_OFFSET = 4100;
    static final int CONSUMER_GROUP_NOT_FOUND = 5000;
    static final int CONSUMER_GROUP_NAME_EXISTS = 5004;
    static final int CONSUMER_GROUP_MEMBER_NOT_FOUND = 5006;
    static final int INVALID_INDEX_POSITION = 10011;

    private final int code;

    BrokerError(int code) {
        super("iggy error " + code, null, false, false);
        this.code = code;
    }

    int code() {
        return code;
    }
}
