package dev.iggysink.adapters.s3.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;

class ObjectOptionsTest {
    @Test
    void tags_are_query_encoded_with_sorted_keys_and_percent_20_for_spaces() {
        assertThat(ObjectOptions.tagging(Map.of("team", "data eng", "a+b", "x/y=z")))
                .contains("a%2Bb=x%2Fy%3Dz&team=data%20eng");
        assertThat(ObjectOptions.tagging(Map.of())).isEmpty();
    }

    @Test
    void a_kms_key_alone_implies_aws_kms_and_options_become_headers() {
        StorageSettings s = new StorageSettings("b", "us-east-1", Optional.empty(), false, Optional.empty(),
                Optional.empty(), StorageClient.AWS, 1, 5L * 1024 * 1024, 1, Optional.empty(), Optional.of("key-1"),
                Optional.of("STANDARD_IA"), Optional.of("bucket-owner-full-control"), Map.of("k", "v"),
                Duration.ofSeconds(1));

        assertThat(ObjectOptions.from(s).headers()).containsExactly(
                Map.entry("x-amz-server-side-encryption", "aws:kms"),
                Map.entry("x-amz-server-side-encryption-aws-kms-key-id", "key-1"),
                Map.entry("x-amz-storage-class", "STANDARD_IA"),
                Map.entry("x-amz-acl", "bucket-owner-full-control"),
                Map.entry("x-amz-tagging", "k=v"));
    }
}
