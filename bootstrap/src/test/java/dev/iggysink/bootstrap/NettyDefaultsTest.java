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

    @Test
    void buffers_netty_frees_itself_need_no_notice_on_any_java() {
        assertThat(NettyDefaults.notice(true, true, 17, false)).isEmpty();
        assertThat(NettyDefaults.notice(true, true, 25, false)).isEmpty();
    }

    /** Java 24+: Netty leaves Unsafe alone; with native access it mallocs and frees its buffers through the FFM API. */
    @Test
    void on_java_24_and_later_native_access_is_what_netty_needs() {
        assertThat(NettyDefaults.notice(false, false, 25, true)).isEmpty();

        assertThat(NettyDefaults.notice(false, false, 25, false)).hasValueSatisfying(n -> assertThat(n)
                .contains("zero-fills", "native access", "--enable-native-access=ALL-UNNAMED", "java -jar")
                .doesNotContain("java.nio is not open"));
    }

    @Test
    void before_java_24_opening_java_nio_is_what_netty_needs() {
        assertThat(NettyDefaults.notice(false, true, 17, false)).hasValueSatisfying(n -> assertThat(n)
                .contains("java.nio is not open", "--add-opens=java.base/java.nio=ALL-UNNAMED"));
    }
}
