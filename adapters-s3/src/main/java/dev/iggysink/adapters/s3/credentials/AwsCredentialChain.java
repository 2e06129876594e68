package dev.iggysink.adapters.s3.credentials;

import dev.iggysink.adapters.s3.CredentialSettings;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.adapters.s3.support.AdapterSupport;
import dev.iggysink.adapters.s3.support.StoreFailures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.ContainerCredentialsProvider;
import software.amazon.awssdk.auth.credentials.InstanceProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.StsClientBuilder;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleWithWebIdentityCredentialsProvider;
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest;
import software.amazon.awssdk.services.sts.model.AssumeRoleWithWebIdentityRequest;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * The store's credentials, from the first of these sources that has some (the README's "AWS credentials"):
 * <ol>
 *   <li>{@code access_key_id} and {@code secret_access_key} of the connector file;</li>
 *   <li>with {@code profile} or {@code credentials_file} set: that profile (default {@code default}) of that file
 *       (default: {@code AWS_SHARED_CREDENTIALS_FILE}, else {@code ~/.aws/credentials}) and of the config file
 *       ({@code AWS_CONFIG_FILE}, else {@code ~/.aws/config}), and nothing else;</li>
 *   <li>otherwise the first that answers of: the JVM's system properties {@code aws.accessKeyId},
 *       {@code aws.secretAccessKey}, {@code aws.sessionToken}; the environment ({@code AWS_ACCESS_KEY_ID},
 *       {@code AWS_SECRET_ACCESS_KEY}, {@code AWS_SESSION_TOKEN}); web identity ({@code AWS_ROLE_ARN} with
 *       {@code AWS_WEB_IDENTITY_TOKEN_FILE}, as EKS's IRSA sets them; the token file is read again at each refresh,
 *       since the kubelet rotates it); the shared files' profile {@code AWS_PROFILE} (default {@code default}); the
 *       container endpoint (ECS task role, EKS Pod Identity); the EC2 instance profile (IMDS, unless
 *       {@code AWS_EC2_METADATA_DISABLED=true}).</li>
 * </ol>
 * As in the AWS SDK, each environment variable named here may be given as its system property instead
 * ({@code aws.profile}, {@code aws.roleArn}, {@code aws.webIdentityTokenFile}, {@code aws.sharedCredentialsFile},
 * {@code aws.configFile}, ...), which wins.
 * With {@code role_arn}, those credentials only call STS {@code AssumeRole} (with {@code external_id},
 * {@code session_name}, {@code assume_role_duration}), and the store is used with the role's temporary credentials.
 * Temporary credentials (web identity, a role, a profile's role, the container's, the instance's) are cached and
 * renewed before they expire; every request asks this provider, so none is signed with expired ones.
 *
 * <p>STS is called at {@code sts_endpoint} when it is set (MinIO serves STS at its S3 endpoint), else at AWS's
 * regional endpoint of {@code region}. Thread-safe; close it with the store.
 */
public final class AwsCredentialChain implements AwsCredentialsProvider, SdkAutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AwsCredentialChain.class);

    private final AwsCredentialsProvider provider;
    /**
     * STS's last answer that it is throttling or down, from a provider inside a chain (which reports failures as a
     * message only); null once that provider succeeds again.
     */
    private final AtomicReference<AwsServiceException> stsBusy;
    private final List<SdkAutoCloseable> owned;
    private final Optional<String> roleArn;
    private final String description;

    private AwsCredentialChain(AwsCredentialsProvider provider, AtomicReference<AwsServiceException> stsBusy,
                               List<SdkAutoCloseable> owned, Optional<String> roleArn, String description) {
        this.provider = provider;
        this.stsBusy = stsBusy;
        this.owned = owned;
        this.roleArn = roleArn;
        this.description = description;
    }

    /** The chain for {@code settings}, reading the process's environment and home directory. */
    public static AwsCredentialChain of(StorageSettings settings) {
        return of(settings, System.getenv(), Paths.get(System.getProperty("user.home", "/")));
    }

    /** The chain with {@code env} as the environment and {@code home} as the home directory (tests). */
    public static AwsCredentialChain of(StorageSettings settings, Map<String, String> env, Path home) {
        CredentialSettings c = settings.credentials();
        List<SdkAutoCloseable> owned = new ArrayList<>();
        AtomicReference<AwsServiceException> stsBusy = new AtomicReference<>();
        AwsCredentialsProvider base;
        String description;
        if (settings.accessKeyId().isPresent() && settings.secretAccessKey().isPresent()) {
            base = StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKeyId().get(),
                    settings.secretAccessKey().get().reveal()));
            description = "access_key_id";
        } else if (c.profile().isPresent() || c.credentialsFile().isPresent()) {
            String profile = c.profile().orElse("default");
            Path credentialsFile = c.credentialsFile().orElseGet(() -> credentialsFile(env, home));
            ProfileFile files = profileFiles(credentialsFile, configFile(env, home));
            base = owning(owned, ProfileCredentialsProvider.builder().profileFile(files).profileName(profile).build());
            description = "profile " + profile + " of " + credentialsFile;
        } else {
            List<AwsCredentialsProvider> chain = new ArrayList<>();
            List<String> names = new ArrayList<>();
            keys(System.getProperty("aws.accessKeyId"), System.getProperty("aws.secretAccessKey"),
                    System.getProperty("aws.sessionToken")).ifPresent(p -> {
                chain.add(p);
                names.add("system properties");
            });
            keys(env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY"), env.get("AWS_SESSION_TOKEN"))
                    .ifPresent(p -> {
                        chain.add(p);
                        names.add("environment");
                    });
            Optional<String> roleFromEnv = setting(env, "AWS_ROLE_ARN", "aws.roleArn");
            Optional<String> tokenFile = setting(env, "AWS_WEB_IDENTITY_TOKEN_FILE", "aws.webIdentityTokenFile");
            if (roleFromEnv.isPresent() && tokenFile.isPresent()) {
                chain.add(noting(stsBusy, webIdentity(settings, roleFromEnv.get(), Paths.get(tokenFile.get()),
                        setting(env, "AWS_ROLE_SESSION_NAME", "aws.roleSessionName"), owned)));
                names.add("web identity " + roleFromEnv.get());
            }
            Path credentialsFile = credentialsFile(env, home);
            Path configFile = configFile(env, home);
            if (Files.isReadable(credentialsFile) || Files.isReadable(configFile)) {
                String profile = setting(env, "AWS_PROFILE", "aws.profile").orElse("default");
                chain.add(owning(owned, ProfileCredentialsProvider.builder()
                        .profileFile(profileFiles(credentialsFile, configFile)).profileName(profile).build()));
                names.add("profile " + profile);
            }
            if (present(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
                    || present(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
                chain.add(owning(owned, ContainerCredentialsProvider.builder().build()));
                names.add("container");
            }
            if (!setting(env, "AWS_EC2_METADATA_DISABLED", "aws.disableEc2Metadata").orElse("")
                    .equalsIgnoreCase("true")) {
                chain.add(owning(owned, InstanceProfileCredentialsProvider.builder().build()));
                names.add("instance profile");
            }
            if (chain.isEmpty()) {
                base = () -> {
                    throw SdkClientException.create("no AWS credentials: no access_key_id in the connector file,"
                            + " none in the environment, no web identity, no shared credentials file, and the"
                            + " instance metadata service is disabled");
                };
            } else {
                base = owning(owned, AwsCredentialsProviderChain.builder().reuseLastProviderEnabled(true)
                        .credentialsProviders(chain).build());
            }
            description = String.join(", then ", names);
        }
        if (c.roleArn().isEmpty()) {
            return new AwsCredentialChain(base, stsBusy, owned, Optional.empty(), description);
        }
        StsClient sts = owning(owned, sts(settings, base));
        AssumeRoleRequest.Builder request = AssumeRoleRequest.builder()
                .roleArn(c.roleArn().get())
                .roleSessionName(c.sessionName())
                .durationSeconds(Math.toIntExact(c.assumeRoleDuration().toSeconds()));
        c.externalId().ifPresent(id -> request.externalId(id.reveal()));
        AwsCredentialsProvider role = owning(owned, StsAssumeRoleCredentialsProvider.builder()
                .stsClient(sts).refreshRequest(request.build()).build());
        return new AwsCredentialChain(role, stsBusy, owned, c.roleArn(),
                "role " + c.roleArn().get() + " assumed with " + description);
    }

    @Override
    public AwsCredentials resolveCredentials() {
        try {
            return provider.resolveCredentials();
        } catch (SdkException e) {
            // A chain of providers names STS's answer only in its text; the answer itself tells the stores to retry.
            AwsServiceException busy = StoreFailures.stsBusy(e).isPresent() ? null : stsBusy.get();
            if (roleArn.isEmpty()) {
                if (busy == null) throw e;
                throw SdkClientException.builder().message(e.getMessage()).cause(busy).build();
            }
            // The store's error names the role, not only the bucket it could not reach for want of credentials.
            String why = e instanceof AwsServiceException service && service.awsErrorDetails() != null
                    ? service.awsErrorDetails().errorCode() + ": " + service.awsErrorDetails().errorMessage()
                    + " (HTTP " + service.statusCode() + " from STS)"
                    : e.getMessage();
            throw SdkClientException.builder().message("AssumeRole of " + roleArn.get() + " failed: " + why)
                    .cause(busy == null ? e : busy).build();
        }
    }

    /** Where credentials come from, for the startup log; holds no secret. */
    public String description() {
        return description;
    }

    @Override
    public void close() {
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (RuntimeException e) {
                LOG.debug("closing a credentials provider", e);
            }
        }
    }

    @Override
    public String toString() {
        return "AwsCredentialChain[" + description + "]";
    }

    /** {@code provider}, with its last answer that STS is throttling or down kept in {@code busy}. */
    private static AwsCredentialsProvider noting(AtomicReference<AwsServiceException> busy,
                                                 AwsCredentialsProvider provider) {
        return () -> {
            try {
                AwsCredentials credentials = provider.resolveCredentials();
                busy.set(null);
                return credentials;
            } catch (RuntimeException e) {
                busy.set(StoreFailures.stsBusy(e).orElse(null));
                throw e;
            }
        };
    }

    private static Optional<AwsCredentialsProvider> keys(String keyId, String secret, String token) {
        if (blank(keyId) || blank(secret)) return Optional.empty();
        AwsCredentials credentials = blank(token) ? AwsBasicCredentials.create(keyId, secret)
                : AwsSessionCredentials.create(keyId, secret, token);
        return Optional.of(StaticCredentialsProvider.create(credentials));
    }

    private static AwsCredentialsProvider webIdentity(StorageSettings settings, String roleArn, Path tokenFile,
                                                      Optional<String> sessionName, List<SdkAutoCloseable> owned) {
        // AssumeRoleWithWebIdentity is not signed: the token is the proof.
        StsClient sts = owning(owned, sts(settings, AnonymousCredentialsProvider.create()));
        String session = sessionName.orElse(settings.credentials().sessionName());
        return owning(owned, StsAssumeRoleWithWebIdentityCredentialsProvider.builder()
                .stsClient(sts)
                .refreshRequest(() -> AssumeRoleWithWebIdentityRequest.builder()
                        .roleArn(roleArn)
                        .roleSessionName(session)
                        .webIdentityToken(readToken(tokenFile))
                        .build())
                .build());
    }

    private static String readToken(Path tokenFile) {
        try {
            return Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the web identity token file " + tokenFile
                    + " (AWS_WEB_IDENTITY_TOKEN_FILE)", e);
        }
    }

    // Apache HttpClient 5, as the S3 client's (see AwsS3ObjectStore).
    private static StsClient sts(StorageSettings settings, AwsCredentialsProvider credentials) {
        StsClientBuilder builder = StsClient.builder()
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials)
                .httpClientBuilder(Apache5HttpClient.builder()
                        .connectionTimeout(AdapterSupport.connectTimeout(settings.requestTimeout()))
                        .socketTimeout(settings.requestTimeout()))
                .overrideConfiguration(o -> o.apiCallAttemptTimeout(settings.requestTimeout()));
        settings.credentials().stsEndpoint().ifPresent(e -> builder.endpointOverride(URI.create(e)));
        return builder.build();
    }

    private static ProfileFile profileFiles(Path credentialsFile, Path configFile) {
        ProfileFile.Aggregator files = ProfileFile.aggregator();
        if (Files.isReadable(configFile)) {
            files.addFile(ProfileFile.builder().content(configFile).type(ProfileFile.Type.CONFIGURATION).build());
        }
        // A missing credentials file named by credentials_file is refused by the config loader; here it only
        // means the profile is not found when credentials are first asked for.
        if (Files.isReadable(credentialsFile)) {
            files.addFile(ProfileFile.builder().content(credentialsFile).type(ProfileFile.Type.CREDENTIALS).build());
        }
        return files.build();
    }

    private static Path credentialsFile(Map<String, String> env, Path home) {
        return setting(env, "AWS_SHARED_CREDENTIALS_FILE", "aws.sharedCredentialsFile").map(Paths::get)
                .orElseGet(() -> home.resolve(".aws").resolve("credentials"));
    }

    private static Path configFile(Map<String, String> env, Path home) {
        return setting(env, "AWS_CONFIG_FILE", "aws.configFile").map(Paths::get)
                .orElseGet(() -> home.resolve(".aws").resolve("config"));
    }

    /** The SDK's rule: the system property, else the environment variable; blank counts as unset. */
    private static Optional<String> setting(Map<String, String> env, String variable, String property) {
        String fromProperty = System.getProperty(property);
        if (!blank(fromProperty)) return Optional.of(fromProperty.strip());
        String fromEnv = env.get(variable);
        return blank(fromEnv) ? Optional.empty() : Optional.of(fromEnv.strip());
    }

    private static boolean present(Map<String, String> env, String name) {
        return !blank(env.get(name));
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    private static <T> T owning(List<SdkAutoCloseable> owned, T provider) {
        if (provider instanceof SdkAutoCloseable closeable) owned.add(closeable);
        return provider;
    }
}
