package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The admin URL an embedding program prints must be one a browser or curl on the same machine can open. */
class EmbeddedSinkTest {
    @Test
    void a_wildcard_bind_is_reached_on_loopback() throws Exception {
        assertThat(EmbeddedSink.url(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 8098)))
                .hasToString("http://127.0.0.1:8098");
        assertThat(EmbeddedSink.url(new InetSocketAddress(InetAddress.getByName("::"), 8098)))
                .hasToString("http://127.0.0.1:8098");
    }

    @Test
    void a_specific_address_is_kept_and_ipv6_is_bracketed() throws Exception {
        assertThat(EmbeddedSink.url(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 4711)))
                .hasToString("http://127.0.0.1:4711");
        assertThat(EmbeddedSink.url(new InetSocketAddress(InetAddress.getByName("::1"), 4711)))
                .hasToString("http://[0:0:0:0:0:0:0:1]:4711");
    }
}
