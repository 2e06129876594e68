package planted.r10ok.application.port;

/** Ports speak in domain terms: a stream, a topic, a consumer group. */
public record Source(String stream, String topic, String consumerGroup) {
}
