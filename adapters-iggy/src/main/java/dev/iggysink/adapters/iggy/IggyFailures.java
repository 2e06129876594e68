package dev.iggysink.adapters.iggy;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.iggy.exception.IggyServerException;

/** Reading Iggy failures: the raw server code is the only reliable label (the Java enum mislabels several). */
final class IggyFailures {
    /** "Resource not found": what an Iggy 0.8 server answers a login with a personal access token it does not know. */
    static final int RESOURCE_NOT_FOUND = 20;
    static final int UNAUTHENTICATED = 40;
    static final int UNAUTHORIZED = 41;
    static final int INVALID_CREDENTIALS = 42;
    static final int INVALID_USERNAME = 43;
    static final int INVALID_PASSWORD = 44;
    static final int USER_INACTIVE = 47;
    static final int INVALID_PERSONAL_ACCESS_TOKEN = 53;
    static final int PERSONAL_ACCESS_TOKEN_EXPIRED = 54;
    static final int STREAM_NOT_FOUND = 1009;
    static final int TOPIC_NOT_FOUND = 2010;
    static final int NOT_RESOLVED_CONSUMER = 3022;
    static final int INVALID_OFFSET = 4100;
    static final int GROUP_NOT_FOUND = 5000;
    static final int GROUP_NAME_EXISTS = 5004;
    static final int GROUP_MEMBER_NOT_FOUND = 5006;

    private IggyFailures() {
    }

    /** The server's error code somewhere in the cause chain, or -1 when the failure did not come from the server. */
    static int errorCode(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IggyServerException s) {
                return s.getRawErrorCode();
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return -1;
    }

    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Codes after which this connection is no longer a usable group member: not logged in, not a member, the group
     * gone, or the server about to close the socket (8 disconnected, 30 stale client, 52 client not found).
     */
    static boolean losesSession(int code) {
        return code == UNAUTHENTICATED || code == GROUP_MEMBER_NOT_FOUND || code == GROUP_NOT_FOUND
                || code == 8 || code == 30 || code == 52;
    }

    /** Why a login was refused, for a code that {@link #rejectsCredentials} or {@link #USER_INACTIVE}. */
    static String whyRejected(int code) {
        return switch (code) {
            case INVALID_CREDENTIALS -> "wrong password or unknown user";
            case INVALID_USERNAME -> "the username must be 3 to 50 characters";
            case INVALID_PASSWORD -> "the password must be 3 to 100 characters";
            case USER_INACTIVE -> "the user is inactive";
            default -> "login refused";
        };
    }

    static boolean rejectsCredentials(int code) {
        return code == INVALID_CREDENTIALS || code == INVALID_USERNAME || code == INVALID_PASSWORD;
    }

    /**
     * The codes an Iggy 0.8 server refuses a personal access token with: a token nobody has is "resource not found"
     * (20, not a credentials code), one the server cannot read is 53, an expired one 54. Read so only for a login
     * with a token: 20 means something else anywhere else.
     */
    static boolean rejectsToken(int code) {
        return code == RESOURCE_NOT_FOUND || code == INVALID_PERSONAL_ACCESS_TOKEN
                || code == PERSONAL_ACCESS_TOKEN_EXPIRED;
    }

    /** Why a personal access token was refused, for a code that {@link #rejectsToken}. */
    static String whyTokenRejected(int code) {
        return switch (code) {
            case RESOURCE_NOT_FOUND -> "no such token: wrong, deleted or never created";
            case INVALID_PERSONAL_ACCESS_TOKEN -> "not a valid token: empty or longer than 100 characters";
            case PERSONAL_ACCESS_TOKEN_EXPIRED -> "the token has expired";
            default -> "login refused";
        };
    }
}
