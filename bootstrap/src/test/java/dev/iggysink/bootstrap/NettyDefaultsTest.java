package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NettyDefaultsTest {

    @Test
    void an_operators_own_setting_is_kept() {
        String before = System.getProperty(NettyDefaults.PROPERTY);
        try {
            System.setProperty(NettyDefaults.PROPERTY, "false");
            NettyDefaults.apply();
            assertThat(System.getProperty(NettyDefaults.PROPERTY)).isEqualTo("false");
            System.clearProperty(NettyDefaults.PROPERTY);
            NettyDefaults.apply();
            assertThat(System.getProperty(NettyDefaults.PROPERTY)).isEqualTo("true");
        } finally {
            if (before == null) System.clearProperty(NettyDefaults.PROPERTY);
            else System.setProperty(NettyDefaults.PROPERTY, before);
        }
    }

    /** The test JVM does not open java.nio (only java -jar of the shaded jar does): the fallback is named. */
    @Test
    void without_java_nio_open_the_notice_says_what_it_costs_and_how_to_fix_it() {
        assertThat(NettyDefaults.fallbackNotice()).hasValueSatisfying(n -> assertThat(n)
                .contains("zero-fills", "java -jar", "--add-opens=java.base/java.nio=ALL-UNNAMED"));
    }
}
