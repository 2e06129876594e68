package dev.iggysink.benchmarks.e2e;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The freshness window's producer: Iggy 0.8's LOGIN_USER and SEND_MESSAGES written straight onto a socket, one
 * partition per connection. The official client spends about 4 us of CPU a 1 KiB message (a {@code BigInteger} per
 * header field, a message object each), which on the bench's 2 cores came out of the sink's share: at the table
 * sink's full rate the senders and the broker took 1.2-1.7 cores. Here the messages' bytes (header and payload) are
 * laid out once per payload, and a batch is one frame copied from them: the frame is what the client sends (index
 * entries of zero offset and timestamp and the running end position, messages with id 0 for the server to assign).
 * Not thread-safe.
 */
final class RawSender implements AutoCloseable {
    private static final int LOGIN_USER = 38;
    private static final int SEND_MESSAGES = 101;
    private static final int HEADER = 64;

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final byte[] metadataHead;
    private final byte[][] messages;
    private byte[] frame = new byte[0];

    /** Connects, logs in, and lays out {@code payloads} as the messages a batch is cut from, for one partition. */
    RawSender(String host, int port, String user, String password, String stream, String topic, int partition,
              List<byte[]> payloads) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), 10_000);
        out = socket.getOutputStream();
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 8192));
        byte[] u = user.getBytes(StandardCharsets.UTF_8);
        byte[] p = password.getBytes(StandardCharsets.UTF_8);
        ByteBuffer login = le(1 + u.length + 1 + p.length + 4 + 4);
        login.put((byte) u.length).put(u).put((byte) p.length).put(p).putInt(0).putInt(0);
        call(LOGIN_USER, login.array(), login.array().length);
        byte[] s = stream.getBytes(StandardCharsets.UTF_8);
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        // [u32 metadata length][stream id][topic id][u8 kind 2: partition id][u8 4][u32 partition] then [u32 count]
        ByteBuffer m = le(4 + 2 + s.length + 2 + t.length + 2 + 4);
        m.putInt(2 + s.length + 2 + t.length + 2 + 4 + 4);
        m.put((byte) 2).put((byte) s.length).put(s).put((byte) 2).put((byte) t.length).put(t);
        m.put((byte) 2).put((byte) 4).putInt(partition);
        metadataHead = m.array();
        messages = new byte[payloads.size()][];
        for (int i = 0; i < messages.length; i++) {
            byte[] payload = payloads.get(i);
            ByteBuffer msg = le(HEADER + payload.length);
            msg.position(52);
            msg.putInt(payload.length); // user headers length (at 48) stays 0
            msg.position(HEADER);
            msg.put(payload);
            messages[i] = msg.array();
        }
    }

    /** Sends the {@code count} messages from ring position {@code at} (wrapping) as one batch; waits for the answer. */
    void send(int at, int count) throws IOException {
        int bytes = 0;
        for (int i = 0, k = at; i < count; i++, k = k + 1 == messages.length ? 0 : k + 1) bytes += messages[k].length;
        int length = metadataHead.length + 4 + 16 * count + bytes;
        if (frame.length < length) frame = new byte[length];
        ByteBuffer f = ByteBuffer.wrap(frame, 0, length).order(ByteOrder.LITTLE_ENDIAN);
        f.put(metadataHead).putInt(count);
        int end = 0;
        for (int i = 0, k = at; i < count; i++, k = k + 1 == messages.length ? 0 : k + 1) {
            end += messages[k].length;
            f.putInt(0).putInt(end).putLong(0);
        }
        for (int i = 0, k = at; i < count; i++, k = k + 1 == messages.length ? 0 : k + 1) f.put(messages[k]);
        call(SEND_MESSAGES, frame, length);
    }

    private void call(int code, byte[] payload, int length) throws IOException {
        ByteBuffer head = le(8);
        head.putInt(length + 4).putInt(code);
        out.write(head.array());
        out.write(payload, 0, length);
        out.flush();
        int status = Integer.reverseBytes(in.readInt());
        int answer = Integer.reverseBytes(in.readInt());
        skip(in, answer);
        if (status != 0) throw new IOException("Iggy answered status " + status + " to command " + code);
    }

    private static void skip(InputStream in, int n) throws IOException {
        while (n > 0) {
            long k = in.skip(n);
            if (k <= 0) {
                if (in.read() < 0) throw new EOFException();
                k = 1;
            }
            n -= (int) k;
        }
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
