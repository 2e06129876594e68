package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Secret;
import dev.iggysink.bootstrap.admin.AdminAccess.Decision;
import java.net.InetAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AdminAccessTest {
    private static final InetAddress LOOPBACK = address("127.0.0.1");
    private static final InetAddress LOOPBACK_V6 = address("::1");
    private static final InetAddress REMOTE = address("10.1.2.3");

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private final AdminAccess withToken = AdminAccess.of(Optional.of(Secret.of("s3cr3t-t0ken")));
    private final AdminAccess withoutToken = AdminAccess.of(Optional.empty());

    @Test
    void without_a_token_loopback_callers_are_allowed_and_everyone_else_is_forbidden() {
        assertThat(withoutToken.decide(null, LOOPBACK)).isEqualTo(Decision.ALLOW);
        assertThat(withoutToken.decide(null, LOOPBACK_V6)).isEqualTo(Decision.ALLOW);
        assertThat(withoutToken.decide(null, REMOTE)).isEqualTo(Decision.FORBIDDEN);
        // A header cannot talk a remote caller in when there is no token to check it against.
        assertThat(withoutToken.decide("Bearer anything", REMOTE)).isEqualTo(Decision.FORBIDDEN);
        assertThat(Decision.FORBIDDEN.httpStatus()).isEqualTo(403);
    }

    @Test
    void with_a_token_a_missing_header_is_unauthorized_even_from_loopback() {
        assertThat(withToken.decide(null, LOOPBACK)).isEqualTo(Decision.UNAUTHORIZED);
        assertThat(Decision.UNAUTHORIZED.httpStatus()).isEqualTo(401);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "Bearer wrong",
            "Bearer s3cr3t-t0ke",
            "Bearer s3cr3t-t0ken-and-more",
            "Basic s3cr3t-t0ken",
            "s3cr3t-t0ken",
            "Bearer",
            "Bearer ",
    })
    void with_a_token_a_wrong_or_malformed_header_is_unauthorized(String header) {
        assertThat(withToken.decide(header, LOOPBACK)).isEqualTo(Decision.UNAUTHORIZED);
        assertThat(withToken.decide(header, REMOTE)).isEqualTo(Decision.UNAUTHORIZED);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"Bearer s3cr3t-t0ken", "bearer s3cr3t-t0ken", "BEARER   s3cr3t-t0ken  "})
    void with_a_token_the_right_one_is_allowed_from_anywhere(String header) {
        assertThat(withToken.decide(header, LOOPBACK)).isEqualTo(Decision.ALLOW);
        assertThat(withToken.decide(header, REMOTE)).isEqualTo(Decision.ALLOW);
    }

    @Test
    void the_token_never_shows_in_to_string() {
        assertThat(withToken.toString()).doesNotContain("s3cr3t").contains("token required");
        assertThat(withoutToken.tokenRequired()).isFalse();
    }
}
