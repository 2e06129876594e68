package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The store's credential sources besides {@code access_key_id}/{@code secret_access_key}: a profile of the shared
 * AWS files ({@code profile}, {@code credentials_file}) and a role to assume with whatever credentials were found
 * ({@code role_arn}, {@code external_id}, {@code session_name}, {@code assume_role_duration}, {@code sts_endpoint}).
 * Empty values: the environment and the default chain decide (README, "AWS credentials").
 */
public record CredentialsConfig(Optional<String> profile, Optional<Path> credentialsFile, Optional<String> roleArn,
                                Optional<Secret> externalId, String sessionName, Duration assumeRoleDuration,
                                Optional<String> stsEndpoint) {
    public static final String DEFAULT_SESSION_NAME = "iggy-s3-sink";
    public static final Duration DEFAULT_ASSUME_ROLE_DURATION = Duration.ofHours(1);
    public static final CredentialsConfig NONE = new CredentialsConfig(Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), DEFAULT_SESSION_NAME, DEFAULT_ASSUME_ROLE_DURATION, Optional.empty());

    public CredentialsConfig {
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(credentialsFile, "credentialsFile");
        Objects.requireNonNull(roleArn, "roleArn");
        Objects.requireNonNull(externalId, "externalId");
        Objects.requireNonNull(sessionName, "sessionName");
        Objects.requireNonNull(assumeRoleDuration, "assumeRoleDuration");
        Objects.requireNonNull(stsEndpoint, "stsEndpoint");
    }
}
