package dev.iggysink.adapters.s3;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.iggysink.adapters.s3.credentials.AwsCredentialChain;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.testkit.s3.FaultProxy;
import dev.iggysink.testkit.s3.MinioServer;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Web identity (EKS's IRSA: {@code AWS_ROLE_ARN} and {@code AWS_WEB_IDENTITY_TOKEN_FILE}) end to end: a MinIO of this
 * test's own trusts a local OpenID issuer (discovery document and signing key served here, as a cluster's service
 * account issuer serves them), the token file holds a JWT that issuer signed, and the stores exchange it at MinIO's
 * STS ({@code AssumeRoleWithWebIdentity}) for temporary credentials and upload with them. The two variables are
 * given as the AWS SDK's system properties ({@code aws.roleArn}, {@code aws.webIdentityTokenFile}), which the chain
 * reads as it reads the variables, since a test cannot set its own process's environment.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebIdentityMinioIT {
    /** The audience EKS puts in a projected service account token, here MinIO's client id. */
    private static final String AUDIENCE = "sts.amazonaws.com";
    /** MinIO, with a claim-based provider, takes any role ARN; AWS's names the role of the service account. */
    private static final String ROLE = "arn:aws:iam::123456789012:role/iggy-s3-sink-irsa";

    private HttpServer issuer;
    private KeyPair key;
    private MinioServer minio;
    private String bucket;
    private Path tokenFile;

    @BeforeAll
    void issuerMinioAndToken() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        key = generator.generateKeyPair();
        issuer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String base = "http://127.0.0.1:" + issuer.getAddress().getPort();
        RSAPublicKey publicKey = (RSAPublicKey) key.getPublic();
        serve("/.well-known/openid-configuration", "{\"issuer\":\"" + base + "\",\"jwks_uri\":\"" + base + "/jwks\","
                + "\"authorization_endpoint\":\"" + base + "/authorize\",\"token_endpoint\":\"" + base + "/token\","
                + "\"response_types_supported\":[\"id_token\"],\"subject_types_supported\":[\"public\"],"
                + "\"id_token_signing_alg_values_supported\":[\"RS256\"]}");
        serve("/jwks", "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"k1\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\""
                + b64(unsigned(publicKey.getModulus())) + "\",\"e\":\"" + b64(unsigned(publicKey.getPublicExponent()))
                + "\"}]}");
        issuer.start();
        minio = MinioServer.startWith(Map.of(
                "MINIO_IDENTITY_OPENID_CONFIG_URL", base + "/.well-known/openid-configuration",
                "MINIO_IDENTITY_OPENID_CLIENT_ID", AUDIENCE,
                "MINIO_IDENTITY_OPENID_CLAIM_NAME", "policy"));
        bucket = TestStores.bucketName("web-identity");
        minio.createBucket(bucket);
        long now = Instant.now().getEpochSecond();
        // A projected service account token: the pod's identity, for the audience STS expects.
        String claims = "{\"iss\":\"" + base + "\",\"sub\":\"system:serviceaccount:data:iggy-s3-sink\",\"aud\":\""
                + AUDIENCE + "\",\"iat\":" + now + ",\"exp\":" + (now + 3600) + ",\"policy\":\"readwrite\"}";
        tokenFile = Files.writeString(Files.createTempFile("web-identity-", ".jwt"), jwt(claims));
        awaitWebIdentity();
    }

    /**
     * MinIO answers before its identity subsystem has read the issuer's configuration, and refuses web identity
     * until then ("Error processing RoleArn parameter"): wait, boundedly, for the first exchange to work.
     */
    private void awaitWebIdentity() throws InterruptedException {
        StorageSettings settings = TestStores.settings(StorageClient.AWS, minio.endpoint(), bucket, Optional.empty(),
                Optional.empty(), Duration.ofSeconds(10)).withCredentials(stsAt(minio.endpoint().toString()));
        Map<String, String> env = Map.of("AWS_ROLE_ARN", ROLE, "AWS_WEB_IDENTITY_TOKEN_FILE", tokenFile.toString(),
                "AWS_EC2_METADATA_DISABLED", "true");
        RuntimeException last = null;
        for (int attempt = 0; attempt < 150; attempt++) {
            try (AwsCredentialChain chain = AwsCredentialChain.of(settings, env, tokenFile.getParent())) {
                chain.resolveCredentials();
                return;
            } catch (RuntimeException e) {
                last = e;
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("MinIO's STS never accepted the web identity token", last);
    }

    private static CredentialSettings stsAt(String endpoint) {
        return new CredentialSettings(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                CredentialSettings.DEFAULT_SESSION_NAME, Duration.ofHours(1), Optional.of(endpoint));
    }

    @AfterAll
    void stop() {
        if (minio != null) minio.close();
        if (issuer != null) issuer.stop(0);
        try {
            if (tokenFile != null) Files.deleteIfExists(tokenFile);
        } catch (java.io.IOException e) {
            // a temporary file; nothing depends on it
        }
    }

    @ParameterizedTest
    @EnumSource(StorageClient.class)
    void the_store_uploads_with_credentials_from_the_web_identity_token(StorageClient client) throws Exception {
        String key = client.name().toLowerCase(Locale.ROOT) + "/via-web-identity.txt";
        byte[] body = ("web identity, " + client).getBytes(StandardCharsets.UTF_8);
        System.setProperty("aws.roleArn", ROLE);
        System.setProperty("aws.webIdentityTokenFile", tokenFile.toString());
        // Nothing leaves this machine: no instance metadata service to fall back to.
        System.setProperty("aws.disableEc2Metadata", "true");
        try (FaultProxy proxy = FaultProxy.start(minio.endpoint());
             ObjectStore store = ObjectStores.create(TestStores.settings(client, proxy.endpoint(), bucket,
                     Optional.empty(), Optional.empty(), Duration.ofSeconds(30))
                     .withCredentials(stsAt(minio.endpoint().toString())))) {
            store.put(key, FileBytes.of(body), "text/plain");
            assertThat(store.get(key)).isEqualTo(body);
            List<String> puts = proxy.requestHeads().stream().filter(h -> h.startsWith("PUT ")).toList();
            assertThat(puts).isNotEmpty().allSatisfy(head -> assertThat(head.toLowerCase(Locale.ROOT))
                    .as("signed with the session token STS handed out").contains("x-amz-security-token: "));
        } finally {
            System.clearProperty("aws.roleArn");
            System.clearProperty("aws.webIdentityTokenFile");
            System.clearProperty("aws.disableEc2Metadata");
        }
        assertThat(minio.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray()).isEqualTo(body);
    }

    private void serve(String path, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        issuer.createContext(path, exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
    }

    private String jwt(String claims) throws Exception {
        String header = "{\"alg\":\"RS256\",\"kid\":\"k1\",\"typ\":\"JWT\"}";
        String signingInput = b64(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64(claims.getBytes(StandardCharsets.UTF_8));
        Signature rsa = Signature.getInstance("SHA256withRSA");
        rsa.initSign(key.getPrivate());
        rsa.update(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + b64(rsa.sign());
    }

    private static String b64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** A JWK's n and e: big-endian, without the sign byte BigInteger adds. */
    private static byte[] unsigned(BigInteger value) {
        byte[] bytes = value.toByteArray();
        return bytes.length > 1 && bytes[0] == 0 ? Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
    }
}
