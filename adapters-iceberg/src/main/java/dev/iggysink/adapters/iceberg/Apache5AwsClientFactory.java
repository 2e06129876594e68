package dev.iggysink.adapters.iceberg;

import java.util.Map;
import org.apache.iceberg.aws.AwsClientFactories;
import org.apache.iceberg.aws.AwsClientFactory;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.AwsProperties;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The clients of Iceberg's GlueCatalog ({@code client.factory}): its Glue client on Apache HttpClient 5 (Iceberg's
 * default factory knows only the SDK's Apache 4 and URLConnection clients, neither shipped), with the store's
 * credentials, as S3FileIO takes them: the key pair when given, else the AWS credential chain. Its S3 clients are
 * {@link Apache5S3ClientFactory}'s.
 */
public final class Apache5AwsClientFactory implements AwsClientFactory {
    private static final long serialVersionUID = 1L;
    /** The Glue client's region when it differs from the store's ({@code catalog_region}). */
    static final String GLUE_REGION = "iggy.glue.region";

    private Map<String, String> properties = Map.of();
    private final Apache5S3ClientFactory s3 = new Apache5S3ClientFactory();

    /** GlueCatalog makes the factory by this constructor, then calls {@link #initialize}. */
    public Apache5AwsClientFactory() {
    }

    @Override
    public void initialize(Map<String, String> catalogProperties) {
        this.properties = Map.copyOf(catalogProperties);
        s3.initialize(catalogProperties);
    }

    @Override
    public GlueClient glue() {
        AwsClientProperties client = new AwsClientProperties(properties);
        AwsProperties aws = new AwsProperties(properties);
        String region = properties.get(GLUE_REGION);
        return GlueClient.builder()
                .applyMutation(b -> {
                    if (region != null) b.region(Region.of(region));
                    else client.applyClientRegionConfiguration(b);
                })
                .applyMutation(b -> b.httpClientBuilder(Apache5S3ClientFactory.httpClient(properties)))
                .applyMutation(aws::applyGlueEndpointConfigurations)
                .credentialsProvider(client.credentialsProvider(properties.get(S3FileIOProperties.ACCESS_KEY_ID),
                        properties.get(S3FileIOProperties.SECRET_ACCESS_KEY),
                        properties.get(S3FileIOProperties.SESSION_TOKEN)))
                .applyMutation(client::applyRetryConfigurations)
                .build();
    }

    @Override
    public S3Client s3() {
        return s3.s3();
    }

    @Override
    public S3AsyncClient s3Async() {
        return s3.s3Async();
    }

    /** Not used by the Glue catalog without Lake Formation or a DynamoDB lock; Iceberg's own. */
    @Override
    public KmsClient kms() {
        return defaults().kms();
    }

    @Override
    public DynamoDbClient dynamo() {
        return defaults().dynamo();
    }

    private AwsClientFactory defaults() {
        AwsClientFactory f = AwsClientFactories.defaultFactory();
        f.initialize(properties);
        return f;
    }
}
