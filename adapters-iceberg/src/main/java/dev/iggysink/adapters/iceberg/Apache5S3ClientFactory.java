package dev.iggysink.adapters.iceberg;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.aws.AwsClientFactories;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.HttpClientProperties;
import org.apache.iceberg.aws.s3.S3FileIOAwsClientFactory;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.util.PropertyUtil;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.apache5.ProxyConfiguration;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 clients of Iceberg's S3FileIO, on Apache HttpClient 5. Iceberg 1.11's own factory knows only the SDK's
 * Apache 4 client (deprecated) and the URLConnection one ({@code http-client.type}); this one configures the client
 * with Iceberg's own public property classes, in the order its default factory applies them (endpoint, path style,
 * credentials, region, signer, access grants, user agent, retries), and differs only in the HTTP client. Iceberg's
 * {@code http-client.apache.*} settings apply to the Apache 5 client as they would to the Apache 4 one; the
 * {@code http-client.type} is not read.
 *
 * <p>Named in the catalog properties as {@link S3FileIOProperties#CLIENT_FACTORY}, which S3FileIO reads for every
 * client it makes, so tables loaded from the catalog and FileIOs made from the same properties all get it.
 */
public final class Apache5S3ClientFactory implements S3FileIOAwsClientFactory {
    private static final long serialVersionUID = 1L;

    private S3FileIOProperties s3 = new S3FileIOProperties();
    private AwsClientProperties aws = new AwsClientProperties();
    private Map<String, String> properties = Map.of();

    /** S3FileIO makes the factory by this constructor, then calls {@link #initialize}. */
    public Apache5S3ClientFactory() {
    }

    /** The catalog properties that make S3FileIO take its clients from this factory. */
    public static Map<String, String> catalogProperties() {
        return Map.of(S3FileIOProperties.CLIENT_FACTORY, Apache5S3ClientFactory.class.getName());
    }

    @Override
    public void initialize(Map<String, String> catalogProperties) {
        this.s3 = new S3FileIOProperties(catalogProperties);
        this.aws = new AwsClientProperties(catalogProperties);
        this.properties = Map.copyOf(catalogProperties);
    }

    @Override
    public S3Client s3() {
        return S3Client.builder()
                .applyMutation(aws::applyClientRegionConfiguration)
                .applyMutation(aws::applyLegacyMd5Plugin)
                // The SDK owns a client made from a builder and closes it with the S3 client (S3FileIO.close()).
                .applyMutation(b -> b.httpClientBuilder(httpClient(properties)))
                .applyMutation(s3::applyEndpointConfigurations)
                .applyMutation(s3::applyServiceConfigurations)
                .applyMutation(b -> s3.applyCredentialConfigurations(aws, b))
                .applyMutation(s3::applySignerConfiguration)
                .applyMutation(s3::applyS3AccessGrantsConfigurations)
                .applyMutation(s3::applyUserAgentConfigurations)
                .applyMutation(s3::applyRetryConfigurations)
                .build();
    }

    /**
     * Iceberg's own default factory's: the sink reads and writes through the sync client only; S3FileIO asks for
     * this one for its analytics accelerator or the CRT client, which are off unless a catalog turns them on, and
     * neither uses an Apache client.
     */
    @Override
    public S3AsyncClient s3Async() {
        return AwsClientFactories.from(properties).s3Async();
    }

    /** Iceberg's {@code http-client.apache.*} and proxy settings, onto the Apache 5 client's builder. */
    static Apache5HttpClient.Builder httpClient(Map<String, String> p) {
        Apache5HttpClient.Builder b = Apache5HttpClient.builder();
        millis(p, HttpClientProperties.APACHE_CONNECTION_TIMEOUT_MS, b::connectionTimeout);
        millis(p, HttpClientProperties.APACHE_SOCKET_TIMEOUT_MS, b::socketTimeout);
        millis(p, HttpClientProperties.APACHE_CONNECTION_ACQUISITION_TIMEOUT_MS, b::connectionAcquisitionTimeout);
        millis(p, HttpClientProperties.APACHE_CONNECTION_MAX_IDLE_TIME_MS, b::connectionMaxIdleTime);
        millis(p, HttpClientProperties.APACHE_CONNECTION_TIME_TO_LIVE_MS, b::connectionTimeToLive);
        Boolean expectContinue = PropertyUtil.propertyAsNullableBoolean(p,
                HttpClientProperties.APACHE_EXPECT_CONTINUE_ENABLED);
        if (expectContinue != null) b.expectContinueEnabled(expectContinue);
        Integer maxConnections = PropertyUtil.propertyAsNullableInt(p, HttpClientProperties.APACHE_MAX_CONNECTIONS);
        if (maxConnections != null) b.maxConnections(maxConnections);
        Boolean keepAlive = PropertyUtil.propertyAsNullableBoolean(p,
                HttpClientProperties.APACHE_TCP_KEEP_ALIVE_ENABLED);
        if (keepAlive != null) b.tcpKeepAlive(keepAlive);
        Boolean reaper = PropertyUtil.propertyAsNullableBoolean(p,
                HttpClientProperties.APACHE_USE_IDLE_CONNECTION_REAPER_ENABLED);
        if (reaper != null) b.useIdleConnectionReaper(reaper);
        String proxy = p.get(HttpClientProperties.PROXY_ENDPOINT);
        Boolean proxyFromSystem = PropertyUtil.propertyAsNullableBoolean(p,
                HttpClientProperties.PROXY_USE_SYSTEM_PROPERTY_VALUES);
        Boolean proxyFromEnvironment = PropertyUtil.propertyAsNullableBoolean(p,
                HttpClientProperties.PROXY_USE_ENVIRONMENT_VARIABLE_VALUES);
        if (proxy != null || proxyFromSystem != null || proxyFromEnvironment != null) {
            ProxyConfiguration.Builder c = ProxyConfiguration.builder();
            if (proxy != null) c.endpoint(URI.create(proxy));
            if (proxyFromSystem != null) c.useSystemPropertyValues(proxyFromSystem);
            if (proxyFromEnvironment != null) c.useEnvironmentVariableValues(proxyFromEnvironment);
            b.proxyConfiguration(c.build());
        }
        return b;
    }

    private static void millis(Map<String, String> p, String key, Consumer<Duration> setter) {
        Long ms = PropertyUtil.propertyAsNullableLong(p, key);
        if (ms != null) setter.accept(Duration.ofMillis(ms));
    }
}
