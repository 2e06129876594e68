package dev.iggysink.adapters.s3.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import dev.iggysink.adapters.s3.CredentialSettings;
import dev.iggysink.adapters.s3.ObjectStores;
import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.adapters.s3.support.StoreFailures;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.Secret;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * Where {@link AwsCredentialChain} finds credentials, in the documented order, and what it asks STS, against a local
 * stand-in for STS that records each request and answers as STS does. The environment and home directory are the
 * test's own, so the machine's AWS setup plays no part; the instance metadata service is switched off
 * ({@code AWS_EC2_METADATA_DISABLED}) so nothing leaves this machine.
 */
class AwsCredentialChainTest {
    private static final String ROLE = "arn:aws:iam::123456789012:role/iggy-s3-sink";

    @TempDir
    Path home;

    private HttpServer sts;
    private final List<Map<String, String>> stsRequests = new CopyOnWriteArrayList<>();
    private final List<String> stsAuthorizations = new CopyOnWriteArrayList<>();
    /** How long the credentials STS hands out are valid. */
    private final Duration validity = Duration.ofHours(1);
    private volatile boolean refuse;
    /** STS answers as it does when its request rate is exceeded (HTTP 400, code Throttling). */
    private volatile boolean throttle;

    @BeforeEach
    void startSts() throws IOException {
        sts = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        sts.createContext("/", exchange -> {
            Map<String, String> form = form(new String(exchange.getRequestBody().readAllBytes(),
                    StandardCharsets.UTF_8));
            stsRequests.add(form);
            stsAuthorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            String action = form.get("Action");
            int n = stsRequests.size();
            byte[] body;
            int status;
            if (throttle) {
                status = 400;
                body = ("<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender"
                        + "</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>r" + n
                        + "</RequestId></ErrorResponse>").getBytes(StandardCharsets.UTF_8);
            } else if (refuse) {
                status = 403;
                body = ("<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender"
                        + "</Type><Code>AccessDenied</Code><Message>not authorized to perform sts:AssumeRole"
                        + "</Message></Error><RequestId>r" + n + "</RequestId></ErrorResponse>")
                        .getBytes(StandardCharsets.UTF_8);
            } else {
                status = 200;
                body = ("<" + action + "Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><" + action
                        + "Result><Credentials><AccessKeyId>ASIATEMP" + n + "</AccessKeyId>"
                        + "<SecretAccessKey>temp-secret-" + n + "</SecretAccessKey><SessionToken>session-token-" + n + "</SessionToken><Expiration>"
                        + Instant.now().plus(validity) + "</Expiration></Credentials><AssumedRoleUser><Arn>" + ROLE
                        + "/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser></" + action
                        + "Result><ResponseMetadata><RequestId>r" + n + "</RequestId></ResponseMetadata></" + action
                        + "Response>").getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().add("Content-Type", "text/xml");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        sts.start();
    }

    @AfterEach
    void stopSts() {
        sts.stop(0);
    }

    private String stsEndpoint() {
        return "http://127.0.0.1:" + sts.getAddress().getPort();
    }

    private static StorageSettings settings(Optional<String> keyId, Optional<String> secret,
                                            CredentialSettings credentials) {
        return StorageSettings.basic("bucket", "eu-west-1", Optional.of("http://127.0.0.1:9"), keyId,
                secret.map(Secret::of)).withCredentials(credentials);
    }

    private CredentialSettings role(Optional<String> externalId, String session, Duration duration) {
        return new CredentialSettings(Optional.empty(), Optional.empty(), Optional.of(ROLE),
                externalId.map(Secret::of), session, duration, Optional.of(stsEndpoint()));
    }

    private static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>();
        env.put("AWS_EC2_METADATA_DISABLED", "true");
        for (int i = 0; i < pairs.length; i += 2) env.put(pairs[i], pairs[i + 1]);
        return env;
    }

    private AwsCredentials resolve(StorageSettings settings, Map<String, String> env) {
        try (AwsCredentialChain chain = AwsCredentialChain.of(settings, env, home)) {
            return chain.resolveCredentials();
        }
    }

    // ---- assume role ----

    @Test
    void a_role_is_assumed_with_its_external_id_session_name_and_duration_signed_by_the_configured_keys() {
        AwsCredentials credentials = resolve(settings(Optional.of("AKIABASE"), Optional.of("base-secret"),
                role(Optional.of("ext-4711"), "sink-eu-1", Duration.ofMinutes(30))), env());

        assertThat(stsRequests).singleElement().satisfies(form -> assertThat(form)
                .containsEntry("Action", "AssumeRole")
                .containsEntry("RoleArn", ROLE)
                .containsEntry("ExternalId", "ext-4711")
                .containsEntry("RoleSessionName", "sink-eu-1")
                .containsEntry("DurationSeconds", "1800"));
        assertThat(stsAuthorizations.get(0)).contains("Credential=AKIABASE/");
        assertThat(credentials).isInstanceOf(AwsSessionCredentials.class);
        assertThat(credentials.accessKeyId()).isEqualTo("ASIATEMP1");
        assertThat(((AwsSessionCredentials) credentials).sessionToken()).isEqualTo("session-token-1");
    }

    @Test
    void without_keys_in_the_file_the_role_is_assumed_with_the_environments_credentials() {
        resolve(settings(Optional.empty(), Optional.empty(), role(Optional.empty(), "s1", Duration.ofHours(1))),
                env("AWS_ACCESS_KEY_ID", "AKIAENV", "AWS_SECRET_ACCESS_KEY", "env-secret"));

        assertThat(stsAuthorizations).singleElement().asString().contains("Credential=AKIAENV/");
        assertThat(stsRequests.get(0)).doesNotContainKey("ExternalId").containsEntry("DurationSeconds", "3600");
    }

    @Test
    void temporary_credentials_are_reused_while_valid_not_fetched_per_request() {
        try (AwsCredentialChain chain = AwsCredentialChain.of(settings(Optional.of("AKIABASE"),
                Optional.of("base-secret"), role(Optional.empty(), "s1", Duration.ofMinutes(15))), env(), home)) {
            for (int i = 0; i < 5; i++) {
                assertThat(chain.resolveCredentials().accessKeyId()).isEqualTo("ASIATEMP1");
            }
        }
        assertThat(stsRequests).hasSize(1);
    }

    @Test
    void a_refused_assume_role_names_the_role_and_not_the_secret() {
        refuse = true;
        Throwable e = catchThrowable(() -> resolve(settings(Optional.of("AKIABASE"), Optional.of("base-secret-77"),
                role(Optional.of("ext-secretish-99"), "s1", Duration.ofHours(1))), env()));

        assertThat(e).hasMessageContaining("AssumeRole of " + ROLE + " failed").hasMessageContaining("AccessDenied");
        assertThat(e.toString()).doesNotContain("base-secret-77").doesNotContain("ext-secretish-99");
    }

    /**
     * A throttled STS answer fails the request as a throttled store answer does: retryable (the upload is tried again
     * with backoff), not a refusal that halts the partition; once STS answers again, credentials are had.
     */
    @Test
    void a_throttled_assume_role_is_a_retryable_store_failure_and_a_later_call_gets_credentials() {
        throttle = true;
        try (AwsCredentialChain chain = AwsCredentialChain.of(settings(Optional.of("AKIABASE"),
                Optional.of("base-secret"), role(Optional.empty(), "s1", Duration.ofHours(1))), env(), home)) {
            StoreException failure = StoreFailures.withoutAnswer("PUT", "bucket", "k",
                    catchThrowable(chain::resolveCredentials));
            assertThat(failure.retryable()).as(failure.getMessage()).isTrue();
            assertThat(failure.httpStatus()).isEqualTo(429);
            assertThat(failure.getMessage()).contains("Throttling", "retryable");

            throttle = false;
            assertThat(chain.resolveCredentials().accessKeyId()).startsWith("ASIATEMP");
        }
    }

    /** Through each store adapter: a PUT while STS throttles fails retryable with 429, as a throttled S3 would. */
    @ParameterizedTest
    @EnumSource(StorageClient.class)
    void a_store_whose_role_sts_throttles_fails_its_put_as_retryable(StorageClient client) throws Exception {
        throttle = true;
        StorageSettings settings = new StorageSettings("bucket", "eu-west-1", Optional.of("http://127.0.0.1:9"), true,
                Optional.of("AKIABASE"), Optional.of(Secret.of("base-secret")), client, 64L << 20, 8L << 20, 1,
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Map.of(),
                Duration.ofSeconds(5)).withCredentials(role(Optional.empty(), "s1", Duration.ofHours(1)));
        try (ObjectStore store = ObjectStores.create(settings)) {
            Throwable thrown = catchThrowable(() -> store.put("k", FileBytes.of(new byte[] {1}), "text/plain",
                    Map.of()));
            assertThat(thrown).isInstanceOf(StoreException.class);
            StoreException failure = (StoreException) thrown;
            assertThat(failure.retryable()).as(failure.getMessage()).isTrue();
            assertThat(failure.httpStatus()).isEqualTo(429);
        }
    }

    @Test
    void a_throttled_web_identity_answer_is_a_retryable_store_failure_and_a_later_call_gets_credentials()
            throws IOException {
        Path token = Files.writeString(home.resolve("token"), "t");
        CredentialSettings stsOnly = new CredentialSettings(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), "sink-pod", Duration.ofHours(1), Optional.of(stsEndpoint()));
        throttle = true;
        try (AwsCredentialChain chain = AwsCredentialChain.of(settings(Optional.empty(), Optional.empty(), stsOnly),
                env("AWS_ROLE_ARN", ROLE, "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString()), home)) {
            StoreException failure = StoreFailures.withoutAnswer("PUT", "bucket", "k",
                    catchThrowable(chain::resolveCredentials));
            assertThat(failure.retryable()).as(failure.getMessage()).isTrue();
            assertThat(failure.httpStatus()).isEqualTo(429);

            throttle = false;
            assertThat(chain.resolveCredentials().accessKeyId()).startsWith("ASIATEMP");
        }
    }

    // ---- web identity (IRSA) ----

    /**
     * The token file is read when STS is asked, not when the chain is made: the kubelet rotates the projected token,
     * and each renewal must send the current one.
     */
    @Test
    void web_identity_from_the_environment_sends_the_token_file_as_it_is_when_sts_is_asked() throws IOException {
        Path token = Files.writeString(home.resolve("token"), "token-one\n");
        CredentialSettings stsOnly = new CredentialSettings(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), "sink-pod", Duration.ofHours(1), Optional.of(stsEndpoint()));
        try (AwsCredentialChain chain = AwsCredentialChain.of(settings(Optional.empty(), Optional.empty(), stsOnly),
                env("AWS_ROLE_ARN", ROLE, "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString()), home)) {
            Files.writeString(token, "token-two\n");
            AwsCredentials credentials = chain.resolveCredentials();

            assertThat(credentials).isInstanceOf(AwsSessionCredentials.class);
            assertThat(credentials.accessKeyId()).isEqualTo("ASIATEMP1");
        }
        assertThat(stsRequests).singleElement().satisfies(form -> assertThat(form)
                .containsEntry("Action", "AssumeRoleWithWebIdentity")
                .containsEntry("RoleArn", ROLE).containsEntry("WebIdentityToken", "token-two")
                .containsEntry("RoleSessionName", "sink-pod"));
        assertThat(stsAuthorizations).as("AssumeRoleWithWebIdentity is not signed").containsOnly("null");
    }

    @Test
    void aws_role_session_name_names_the_web_identity_session() throws IOException {
        Path token = Files.writeString(home.resolve("token"), "t");
        CredentialSettings stsOnly = new CredentialSettings(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), "sink-pod", Duration.ofHours(1), Optional.of(stsEndpoint()));
        resolve(settings(Optional.empty(), Optional.empty(), stsOnly), env("AWS_ROLE_ARN", ROLE,
                "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString(), "AWS_ROLE_SESSION_NAME", "from-env"));
        assertThat(stsRequests.get(0)).containsEntry("RoleSessionName", "from-env");
    }

    @Test
    void environment_keys_come_before_web_identity() throws IOException {
        Path token = Files.writeString(home.resolve("token"), "t");
        AwsCredentials credentials = resolve(settings(Optional.empty(), Optional.empty(), CredentialSettings.NONE),
                env("AWS_ACCESS_KEY_ID", "AKIAENV", "AWS_SECRET_ACCESS_KEY", "s", "AWS_ROLE_ARN", ROLE,
                        "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString()));
        assertThat(credentials.accessKeyId()).isEqualTo("AKIAENV");
        assertThat(stsRequests).isEmpty();
    }

    // ---- profiles ----

    @Test
    void aws_profile_picks_a_profile_of_the_shared_credentials_file_after_web_identity_and_environment()
            throws IOException {
        Path file = Files.writeString(home.resolve("shared"), "[default]\naws_access_key_id = AKIADEFAULT\n"
                + "aws_secret_access_key = d\n[sink]\naws_access_key_id = AKIASINK\naws_secret_access_key = s\n");
        assertThat(resolve(settings(Optional.empty(), Optional.empty(), CredentialSettings.NONE),
                env("AWS_SHARED_CREDENTIALS_FILE", file.toString(), "AWS_PROFILE", "sink")).accessKeyId())
                .isEqualTo("AKIASINK");
        assertThat(resolve(settings(Optional.empty(), Optional.empty(), CredentialSettings.NONE),
                env("AWS_SHARED_CREDENTIALS_FILE", file.toString())).accessKeyId()).isEqualTo("AKIADEFAULT");
        // ~/.aws/credentials when no file is named.
        Files.createDirectories(home.resolve(".aws"));
        Files.copy(file, home.resolve(".aws/credentials"));
        assertThat(resolve(settings(Optional.empty(), Optional.empty(), CredentialSettings.NONE),
                env("AWS_PROFILE", "sink")).accessKeyId()).isEqualTo("AKIASINK");
    }

    @Test
    void a_configured_profile_and_credentials_file_win_over_the_environment() throws IOException {
        Path file = Files.writeString(home.resolve("creds"), "[ops]\naws_access_key_id = AKIAOPS\n"
                + "aws_secret_access_key = o\n");
        CredentialSettings profile = new CredentialSettings(Optional.of("ops"), Optional.of(file), Optional.empty(),
                Optional.empty(), CredentialSettings.DEFAULT_SESSION_NAME, Duration.ofHours(1), Optional.empty());
        assertThat(resolve(settings(Optional.empty(), Optional.empty(), profile),
                env("AWS_ACCESS_KEY_ID", "AKIAENV", "AWS_SECRET_ACCESS_KEY", "s", "AWS_PROFILE", "other"))
                .accessKeyId()).isEqualTo("AKIAOPS");
    }

    @Test
    void a_profile_with_a_role_of_its_own_is_assumed_through_sts() throws IOException {
        Path credentials = Files.writeString(home.resolve("creds"), "[base]\naws_access_key_id = AKIAPROFILE\n"
                + "aws_secret_access_key = p\n");
        Path config = Files.writeString(home.resolve("config"), "[profile sink]\nrole_arn = " + ROLE + "\n"
                + "source_profile = base\nexternal_id = from-profile\nregion = eu-west-1\n");
        // The SDK builds that STS client itself; only its own setting points it here.
        System.setProperty("aws.endpointUrlSts", stsEndpoint());
        AwsCredentials credentials1;
        try {
            credentials1 = resolve(settings(Optional.empty(), Optional.empty(), CredentialSettings.NONE),
                    env("AWS_SHARED_CREDENTIALS_FILE", credentials.toString(), "AWS_CONFIG_FILE", config.toString(),
                            "AWS_PROFILE", "sink"));
        } finally {
            System.clearProperty("aws.endpointUrlSts");
        }
        assertThat(credentials1).isInstanceOf(AwsSessionCredentials.class);
        assertThat(stsRequests).singleElement().satisfies(form -> assertThat(form)
                .containsEntry("RoleArn", ROLE).containsEntry("ExternalId", "from-profile"));
        assertThat(stsAuthorizations.get(0)).contains("Credential=AKIAPROFILE/");
    }

    @Test
    void with_no_source_at_all_the_error_says_what_was_looked_at() {
        Throwable e = catchThrowable(() -> resolve(settings(Optional.empty(), Optional.empty(),
                CredentialSettings.NONE), env()));
        assertThat(e).hasMessageContaining("no AWS credentials");
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) continue;
            form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return form;
    }
}
