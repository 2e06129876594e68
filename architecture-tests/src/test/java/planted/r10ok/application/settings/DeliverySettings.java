package planted.r10ok.application.settings;

/** What the pipeline needs: no word of a store or a source (report, support and important contain none). */
public record DeliverySettings(long maxBufferedBytes, int uploadConcurrency, String dlqPrefix, boolean reportLag,
                               int supportedVersion, boolean important) {
}
