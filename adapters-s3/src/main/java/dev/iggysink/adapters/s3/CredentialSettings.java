package dev.iggysink.adapters.s3;

import dev.iggysink.application.settings.Secret;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the store's credentials come from besides a configured key pair (see
 * {@link dev.iggysink.adapters.s3.credentials.AwsCredentialChain} for the order): a named profile of the shared files
 * ({@code profile}, {@code credentials_file}), and a role to assume on top of whatever was found ({@code role_arn}
 * with {@code external_id}, {@code session_name}, {@code assume_role_duration}, at {@code sts_endpoint}).
 */
public record CredentialSettings(Optional<String> profile, Optional<Path> credentialsFile, Optional<String> roleArn,
                                 Optional<Secret> externalId, String sessionName, Duration assumeRoleDuration,
                                 Optional<String> stsEndpoint) {
    /** The session name AssumeRole uses when none is configured: it shows in CloudTrail as the caller. */
    public static final String DEFAULT_SESSION_NAME = "iggy-s3-sink";
    /** AWS's own default for AssumeRole. */
    public static final Duration DEFAULT_ASSUME_ROLE_DURATION = Duration.ofHours(1);
    /** Nothing but the key pair or the chain. */
    public static final CredentialSettings NONE = new CredentialSettings(Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), DEFAULT_SESSION_NAME, DEFAULT_ASSUME_ROLE_DURATION, Optional.empty());

    public CredentialSettings {
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(credentialsFile, "credentialsFile");
        Objects.requireNonNull(roleArn, "roleArn");
        Objects.requireNonNull(externalId, "externalId");
        Objects.requireNonNull(sessionName, "sessionName");
        Objects.requireNonNull(assumeRoleDuration, "assumeRoleDuration");
        Objects.requireNonNull(stsEndpoint, "stsEndpoint");
    }

    /** Assume {@code roleArn} with the default session name and duration, at {@code stsEndpoint} if given. */
    public static CredentialSettings assumeRole(String roleArn, Optional<String> stsEndpoint) {
        return new CredentialSettings(Optional.empty(), Optional.empty(), Optional.of(roleArn), Optional.empty(),
                DEFAULT_SESSION_NAME, DEFAULT_ASSUME_ROLE_DURATION, stsEndpoint);
    }
}
