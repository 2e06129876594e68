package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SystemLoggerTest {

    @Test
    void the_pipelines_system_logger_is_served_by_slf4j_not_java_util_logging() {
        System.Logger logger = System.getLogger("dev.iggysink.application.service.TopicConsumer");

        assertThat(logger.getClass().getName()).startsWith("org.slf4j.jdk.platform.logging");
    }
}
