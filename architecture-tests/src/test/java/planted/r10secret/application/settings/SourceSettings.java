package planted.r10secret.application.settings;

/** A connection option by name, and a credential under an innocent name. */
public record SourceSettings(String stream, Secret password, Secret login) {
}
