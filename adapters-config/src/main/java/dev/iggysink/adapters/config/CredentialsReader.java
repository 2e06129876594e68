package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** Reads and checks the credential sources of [plugin_config] ({@link CredentialsConfig}); every problem recorded. */
final class CredentialsReader {
    /** IAM's role ARN: arn:aws:iam::123456789012:role/name (other partitions, and MinIO's arn:minio:iam:::role/x). */
    private static final Pattern ROLE_ARN = Pattern.compile("arn:[a-z][a-z0-9-]*:iam::[0-9]*:role/[\\w+=,.@/-]+");
    /** What STS accepts as RoleSessionName. */
    private static final Pattern SESSION_NAME = Pattern.compile("[\\w+=,.@-]{2,64}");
    /** What STS accepts as ExternalId. */
    private static final Pattern EXTERNAL_ID = Pattern.compile("[\\w+=,.@:/-]{2,1224}");
    /** STS's bounds of DurationSeconds (a role's own maximum may be lower, which STS then reports). */
    private static final Duration MIN_DURATION = Duration.ofMinutes(15);
    private static final Duration MAX_DURATION = Duration.ofHours(12);

    private CredentialsReader() {
    }

    /**
     * @param keyPair whether {@code access_key_id} and {@code secret_access_key} are both set
     * @param baseDir where a relative {@code credentials_file} is found (the config file's directory)
     */
    static CredentialsConfig read(Table p, Path baseDir, boolean keyPair) {
        Optional<String> roleArn = p.string("role_arn").map(String::strip).filter(s -> !s.isEmpty());
        roleArn.filter(arn -> !ROLE_ARN.matcher(arn).matches()).ifPresent(arn -> p.error("role_arn",
                "\"" + arn + "\" is not an IAM role ARN (arn:aws:iam::<account id>:role/<role name>)"));
        Optional<Secret> externalId = p.secret("external_id").filter(s -> !s.reveal().isEmpty());
        if (externalId.isPresent() && !EXTERNAL_ID.matcher(externalId.get().reveal()).matches()) {
            p.error("external_id", "must be 2 to 1224 letters, digits or characters of +=,.@:/-_ (value not shown)");
        }
        Optional<String> sessionName = p.string("session_name").map(String::strip).filter(s -> !s.isEmpty());
        sessionName.filter(name -> !SESSION_NAME.matcher(name).matches()).ifPresent(name -> p.error("session_name",
                "\"" + name + "\" must be 2 to 64 letters, digits or characters of +=,.@-_"));
        Optional<Duration> duration = p.duration("assume_role_duration", false);
        duration.filter(d -> d.compareTo(MIN_DURATION) < 0 || d.compareTo(MAX_DURATION) > 0).ifPresent(d ->
                p.error("assume_role_duration", Durations.format(d) + " is outside STS's 15m to 12h"));
        Optional<String> stsEndpoint = p.string("sts_endpoint").map(String::strip).filter(s -> !s.isEmpty());
        stsEndpoint.flatMap(StoreRules::endpointProblem).ifPresent(problem -> p.error("sts_endpoint", problem));
        if (roleArn.isEmpty()) {
            // sts_endpoint also serves web identity (AWS_ROLE_ARN), so it stands alone too.
            for (String key : List.of("external_id", "session_name", "assume_role_duration")) {
                if (p.has(key)) p.error(key, "only applies with " + p.path("role_arn"));
            }
        }

        Optional<String> profile = p.string("profile").map(String::strip);
        if (profile.isPresent() && profile.get().isEmpty()) {
            p.error("profile", "must not be empty (leave it out for AWS_PROFILE or \"default\")");
        }
        Optional<Path> credentialsFile = credentialsFile(p, baseDir);
        if (keyPair) {
            for (String key : List.of("profile", "credentials_file")) {
                if (p.has(key)) {
                    p.error(key, "set together with " + p.path("access_key_id") + " (choose one source of"
                            + " credentials)");
                }
            }
        }
        return new CredentialsConfig(profile.filter(s -> !s.isEmpty()), credentialsFile, roleArn, externalId,
                sessionName.orElse(CredentialsConfig.DEFAULT_SESSION_NAME),
                duration.orElse(CredentialsConfig.DEFAULT_ASSUME_ROLE_DURATION), stsEndpoint);
    }

    /** Relative to the config file's directory; it must be a readable file now, not at the first upload. */
    private static Optional<Path> credentialsFile(Table p, Path baseDir) {
        Optional<String> given = p.string("credentials_file").map(String::strip);
        if (given.isEmpty()) return Optional.empty();
        if (given.get().isEmpty()) {
            p.error("credentials_file", "must not be empty (leave it out for AWS_SHARED_CREDENTIALS_FILE or"
                    + " ~/.aws/credentials)");
            return Optional.empty();
        }
        Path file;
        try {
            file = baseDir.resolve(given.get()).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            p.error("credentials_file", "is not a valid path: " + e.getMessage());
            return Optional.empty();
        }
        if (!Files.isRegularFile(file)) {
            p.error("credentials_file", file + " does not exist or is not a file");
        } else if (!Files.isReadable(file)) {
            p.error("credentials_file", file + " is not readable by this user");
        }
        return Optional.of(file);
    }
}
