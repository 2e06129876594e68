package dev.iggysink.testkit.iggy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Frames the Java client never produces: status codes for malformed requests, and that the connection stays in
 * sync afterwards. Server-agnostic, so it runs against {@code IGGY_TCP_ADDRESS} too.
 */
class RawFrameConformanceIT extends ConformanceSupport {

    private record Reply(int status, byte[] body) {}

    private Socket socket;
    private DataInputStream in;
    private OutputStream out;

    @BeforeEach
    void open() throws IOException {
        socket = new Socket(endpoint.host(), endpoint.port());
        socket.setSoTimeout(5_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    @AfterEach
    void closeSocket() throws IOException {
        socket.close();
    }

    private Reply call(int code, byte[] payload) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(8 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(4 + payload.length).putInt(code).put(payload);
        out.write(frame.array());
        out.flush();
        return read();
    }

    private Reply read() throws IOException {
        byte[] head = new byte[8];
        in.readFully(head);
        ByteBuffer h = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
        int status = h.getInt();
        byte[] body = new byte[h.getInt()];
        in.readFully(body);
        return new Reply(status, body);
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static byte[] login(String user, String password) {
        byte[] u = user.getBytes(StandardCharsets.UTF_8);
        byte[] p = password.getBytes(StandardCharsets.UTF_8);
        return le(2 + u.length + p.length + 8).put((byte) u.length).put(u).put((byte) p.length).put(p)
                .putInt(0).putInt(0).array();
    }

    private static byte[] nameId(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        return le(2 + n.length).put((byte) 2).put((byte) n.length).put(n).array();
    }

    private void loginAsRoot() throws IOException {
        assertThat(call(38, login("iggy", "iggy")).status()).isZero();
    }

    @Test
    void an_ok_without_data_is_status_zero_and_length_zero() throws IOException {
        Reply ping = call(1, new byte[0]);

        assertThat(ping.status()).isZero();
        assertThat(ping.body()).isEmpty();
    }

    @Test
    void an_unknown_command_gives_3_and_the_connection_stays_in_sync() throws IOException {
        assertThat(call(9_999, new byte[] {1, 2, 3}).status()).isEqualTo(3);
        assertThat(call(1, new byte[0]).status()).isZero();
    }

    /**
     * The sink sends its polls on the channel past the client's pool (adapters-iggy {@code DirectRequestHandler}) and
     * routes each answer to the oldest unanswered request: that holds only if a server answers requests that are on
     * the wire together one by one, in the order they came, whatever each one's outcome.
     */
    @Test
    void requests_sent_back_to_back_are_answered_one_each_in_the_order_sent() throws IOException {
        ByteArrayOutputStream together = new ByteArrayOutputStream();
        int[] codes = {1, 38, 9_999, 38, 1, 203};
        byte[][] payloads = {new byte[0], login("iggy", "wrong-password"), new byte[] {1, 2, 3},
                login("iggy", "iggy"), new byte[0], nameId("surely-missing-stream-name")};
        for (int i = 0; i < codes.length; i++) {
            together.write(le(8).putInt(4 + payloads[i].length).putInt(codes[i]).array());
            together.write(payloads[i]);
        }
        out.write(together.toByteArray());
        out.flush();

        int[] statuses = new int[codes.length];
        for (int i = 0; i < codes.length; i++) statuses[i] = read().status();

        // ping, failed login, unknown command, login, ping, delete stream (missing: not found, as a logged-in call)
        assertThat(statuses).containsExactly(0, 42, 3, 0, 0, 1009);
        assertThat(call(1, new byte[0]).status()).as("in sync afterwards").isZero();
    }

    @Test
    void login_answers_the_user_id_and_a_failed_login_leaves_the_connection_usable() throws IOException {
        assertThat(call(38, login("iggy", "wrong-password")).status()).isEqualTo(42);

        Reply ok = call(38, login("iggy", "iggy"));

        assertThat(ok.status()).isZero();
        assertThat(ok.body()).containsExactly(0, 0, 0, 0);
    }

    @Test
    void login_field_validation() throws IOException {
        assertThat(call(38, login("", "iggy")).status()).isEqualTo(4);
        assertThat(call(38, login("ab", "iggy")).status()).isEqualTo(43);
        assertThat(call(38, login("iggy", "ab")).status()).isEqualTo(44);
        byte[] withoutVersion = le(10).put((byte) 4).put("iggy".getBytes(StandardCharsets.UTF_8)).put((byte) 4)
                .put("iggy".getBytes(StandardCharsets.UTF_8)).array();
        assertThat(call(38, withoutVersion).status()).isEqualTo(3);
    }

    @Test
    void commands_before_login_get_40() throws IOException {
        assertThat(call(200, nameId(stream)).status()).isEqualTo(40);
        assertThat(call(20, new byte[0]).status()).isEqualTo(40);
    }

    @Test
    void malformed_identifiers_and_names() throws IOException {
        loginAsRoot();

        assertThat(call(200, new byte[] {1, 3, 0, 0, 0}).status()).as("numeric id of length 3").isEqualTo(4);
        assertThat(call(200, new byte[] {7, 1, 0}).status()).as("unknown identifier kind").isEqualTo(3);
        assertThat(call(200, new byte[] {2, 10, 'a', 'b'}).status()).as("truncated").isEqualTo(3);
        assertThat(call(202, new byte[] {0}).status()).as("empty stream name").isEqualTo(4);
        Reply missing = call(200, nameId("surely-missing-stream-name"));
        assertThat(missing.status()).isZero();
        assertThat(missing.body()).isEmpty();
    }

    private static byte[] send(byte[] streamId, int count, byte[] indexes, byte[] messages) {
        byte[] topic = nameId("t");
        int metadata = streamId.length + topic.length + 2 + 4;
        return le(4 + metadata + indexes.length + messages.length)
                .putInt(metadata).put(streamId).put(topic).put((byte) 1).put((byte) 0).putInt(count)
                .put(indexes).put(messages).array();
    }

    /** The server may leave the rest of a rejected SEND frame unread, so each case gets a fresh connection. */
    private int sendOnFreshConnection(boolean login, byte[] payload) throws IOException {
        closeSocket();
        open();
        if (login) {
            loginAsRoot();
        }
        return call(101, payload).status();
    }

    @Test
    void send_validation_happens_before_the_stream_lookup() throws IOException {
        byte[] missingStream = nameId("surely-missing-stream-name");
        byte[] message = new byte[64];
        byte[] nonZeroIndexOffset = le(16).putInt(1).putInt(64).putLong(0).array();
        byte[] index = le(16).putInt(0).putInt(64).putLong(0).array();

        assertThat(sendOnFreshConnection(false, send(missingStream, 1, index, message))).isEqualTo(40);
        assertThat(sendOnFreshConnection(true, send(missingStream, 0, new byte[0], new byte[0]))).isEqualTo(4009);
        assertThat(sendOnFreshConnection(true, send(missingStream, 1, nonZeroIndexOffset, message))).isEqualTo(4031);
        assertThat(sendOnFreshConnection(true, send(missingStream, 1, index, message))).isEqualTo(1009);
        assertThat(call(1, new byte[0]).status()).isZero();
    }
}
