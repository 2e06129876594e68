package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How messages name a catalog: its uri, or for Glue without one, AWS Glue and the region it is asked in. */
class CatalogWhereTest {
    private static CatalogSettings glue(String uri, Optional<String> storeRegion, Optional<String> catalogRegion) {
        return new CatalogSettings("glue", "iggy", uri, "s3://lake/wh", Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), storeRegion, false, Optional.empty(),
                new CatalogSettings.Aws(false, Optional.empty(), catalogRegion));
    }

    @Test
    void a_glue_catalog_without_uri_is_aws_glue_in_its_region() {
        assertThat(TableChecks.where(glue("", Optional.of("eu-west-1"), Optional.empty())))
                .isEqualTo("AWS Glue (eu-west-1)");
        assertThat(TableChecks.where(glue("", Optional.of("eu-west-1"), Optional.of("eu-central-1"))))
                .isEqualTo("AWS Glue (eu-central-1)");
        assertThat(TableChecks.where(glue("", Optional.empty(), Optional.empty())))
                .isEqualTo("AWS Glue (the AWS region chain's region)");
        assertThat(TableChecks.where(glue("http://127.0.0.1:5000", Optional.empty(), Optional.empty())))
                .isEqualTo("http://127.0.0.1:5000");
    }
}
