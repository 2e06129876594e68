package dev.iggysink.adapters.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.iggysink.adapters.s3.credentials.AwsCredentialChain;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.testkit.s3.FaultProxy;
import dev.iggysink.testkit.s3.MinioServer;
import io.minio.admin.MinioAdminClient;
import io.minio.admin.UserInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * {@code role_arn} end to end against MinIO's own STS (it serves {@code AssumeRole} at its S3 endpoint): a MinIO
 * user made for the test (its admin API) is the base identity, both adapters assume the role with its keys and
 * upload with the temporary credentials STS hands out. The S3 requests go through a recording proxy, so the test
 * sees what signed them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AssumeRoleMinioIT {
    /** MinIO's AssumeRole takes any role ARN (the base user's policy applies); AWS's names a real role. */
    private static final String ROLE = "arn:aws:iam::000000000000:role/iggy-s3-sink";

    private MinioServer minio;
    private MinioAdminClient admin;
    private String bucket;
    private final String user = "sink-base-" + UUID.randomUUID().toString().substring(0, 8);
    private final String userSecret = "base-secret-" + UUID.randomUUID();

    @BeforeAll
    void userAndBucket() throws Exception {
        minio = MinioServer.shared();
        bucket = TestStores.bucketName("assume-role");
        minio.createBucket(bucket);
        admin = MinioAdminClient.builder().endpoint(minio.endpoint().toString())
                .credentials(minio.accessKey(), minio.secretKey()).build();
        admin.addUser(user, UserInfo.Status.ENABLED, userSecret, null, null);
        admin.setPolicy(user, false, "readwrite");
    }

    @AfterAll
    void removeUser() throws Exception {
        admin.deleteUser(user);
    }

    private StorageSettings settings(StorageClient client, String s3Endpoint, String secret) {
        CredentialSettings role = new CredentialSettings(Optional.empty(), Optional.empty(), Optional.of(ROLE),
                Optional.of(Secret.of("ext-id-it")), "assume-role-it", Duration.ofMinutes(15),
                Optional.of(minio.endpoint().toString()));
        return TestStores.settings(client, java.net.URI.create(s3Endpoint), bucket, Optional.of(user),
                Optional.of(secret), Duration.ofSeconds(30)).withCredentials(role);
    }

    @ParameterizedTest
    @EnumSource(StorageClient.class)
    void the_store_uploads_with_the_temporary_credentials_of_the_assumed_role(StorageClient client) throws Exception {
        String key = client.name().toLowerCase(Locale.ROOT) + "/via-role.txt";
        byte[] body = ("assumed by " + client).getBytes(StandardCharsets.UTF_8);
        try (FaultProxy proxy = FaultProxy.start(minio.endpoint());
             ObjectStore store = ObjectStores.create(settings(client, proxy.endpoint().toString(), userSecret))) {
            store.put(key, FileBytes.of(body), "text/plain");
            assertThat(store.get(key)).isEqualTo(body);

            List<String> puts = proxy.requestHeads().stream().filter(h -> h.startsWith("PUT ")).toList();
            assertThat(puts).isNotEmpty().allSatisfy(head -> {
                String lower = head.toLowerCase(Locale.ROOT);
                assertThat(lower).as("signed with a session token").contains("x-amz-security-token: ");
                assertThat(head).as("not with the base user's key").doesNotContain("Credential=" + user + "/");
            });
        }
        // What the store saw is what MinIO's STS hands out for the role: temporary keys with a session token.
        try (AwsCredentialChain chain = AwsCredentialChain.of(settings(client, minio.endpoint().toString(),
                userSecret))) {
            AwsCredentials temporary = chain.resolveCredentials();
            assertThat(temporary).isInstanceOf(AwsSessionCredentials.class);
            assertThat(temporary.accessKeyId()).isNotEqualTo(user);
        }
        // Written as the user (the role inherits its policy): the root client reads it back.
        assertThat(minio.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray()).isEqualTo(body);
    }

    @ParameterizedTest
    @EnumSource(StorageClient.class)
    void a_refused_assume_role_fails_the_upload_naming_the_role_without_a_secret(StorageClient client) {
        String wrong = "wrong-base-secret-" + UUID.randomUUID();
        try (ObjectStore store = ObjectStores.create(settings(client, minio.endpoint().toString(), wrong))) {
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> store.put("refused.txt", FileBytes.of(new byte[] {1}), "text/plain"));
            assertThat(e).isNotNull();
            String everything = e + " " + (e.getCause() == null ? "" : e.getCause().toString());
            assertThat(everything).contains("AssumeRole of " + ROLE + " failed");
            assertThat(everything).doesNotContain(wrong).doesNotContain(userSecret).doesNotContain("ext-id-it");
        }
    }
}
