/**
 * Where both S3 adapters get their credentials: {@link AwsCredentialChain}, the AWS SDK's providers in the order the
 * README documents (key pair, profile, environment, web identity, shared files, container, instance) and an assumed
 * role on top. Public only because Java has no module-private visibility across packages; nothing outside
 * {@code dev.iggysink.adapters.s3..} may use it.
 */
package dev.iggysink.adapters.s3.credentials;
