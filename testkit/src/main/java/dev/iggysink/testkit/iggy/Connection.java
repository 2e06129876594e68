package dev.iggysink.testkit.iggy;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

/**
 * One socket, one thread: read {@code [u32 length][u32 code][payload]}, answer {@code [u32 status][u32 length][data]}.
 * Frames are always drained in full, so a bad request never desynchronises the stream (the Java client cannot tell).
 */
final class Connection implements Runnable {

    /** Larger than any sane test batch; beyond it the frame cannot be trusted and the socket is closed. */
    private static final long MAX_FRAME_BYTES = 256L * 1024 * 1024;
    private static final int DROP_DRAIN_TIMEOUT_MILLIS = 5_000;

    private final Socket socket;
    private final BrokerState state;
    private final EmbeddedIggyServer server;
    final ClientSession session;
    private volatile boolean dropped;
    private final Object stallLock = new Object();

    Connection(Socket socket, BrokerState state, EmbeddedIggyServer server) {
        this.socket = socket;
        this.state = state;
        this.server = server;
        InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
        this.session = new ClientSession(remote.getAddress().getHostAddress() + ":" + remote.getPort());
    }

    @Override
    public void run() {
        state.connected(session);
        try {
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            byte[] head = new byte[8];
            while (readFrameHead(in, head)) {
                long length = Integer.toUnsignedLong(WireReader.leInt(head, 0));
                int code = WireReader.leInt(head, 4);
                if (length > MAX_FRAME_BYTES) {
                    respond(out, BrokerError.INVALID_SIZE_BYTES, null);
                    break;
                }
                byte[] payload = length < 4 ? new byte[0] : readFully(in, (int) (length - 4));
                server.requestHeld(+1);
                try {
                    awaitNotStalled();
                } finally {
                    server.requestHeld(-1);
                }
                if (dropped) {
                    continue;
                }
                if (length < 4) {
                    respond(out, BrokerError.INVALID_COMMAND, null);
                    continue;
                }
                byte[] response;
                int status;
                try {
                    response = state.execute(session, code, payload);
                    status = 0;
                } catch (BrokerError e) {
                    response = null;
                    status = e.code();
                }
                if (dropped) {
                    continue;
                }
                respond(out, status, response);
            }
        } catch (IOException | RuntimeException e) {
            // A reset, a timeout while draining after a drop, or close(): the connection is simply gone.
        } finally {
            closeQuietly();
            state.disconnected(session);
            server.unregister(this);
        }
    }

    private static boolean readFrameHead(InputStream in, byte[] head) throws IOException {
        int read = 0;
        while (read < head.length) {
            int n = in.read(head, read, head.length - read);
            if (n < 0) {
                if (read == 0) {
                    return false;
                }
                throw new EOFException();
            }
            read += n;
        }
        return true;
    }

    private static byte[] readFully(InputStream in, int length) throws IOException {
        byte[] buf = new byte[length];
        int read = 0;
        while (read < length) {
            int n = in.read(buf, read, length - read);
            if (n < 0) {
                throw new EOFException();
            }
            read += n;
        }
        return buf;
    }

    private static void respond(OutputStream out, int status, byte[] data) throws IOException {
        int length = data == null ? 0 : data.length;
        byte[] head = new WireWriter(8).u32(status).u32(length).toByteArray();
        out.write(head);
        if (length > 0) {
            out.write(data);
        }
        out.flush();
    }

    private void awaitNotStalled() throws IOException {
        synchronized (stallLock) {
            while (server.stalled() && !dropped) {
                try {
                    stallLock.wait(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
    }

    /**
     * Graceful close: send FIN now but keep reading until the peer closes, because closing a socket with unread
     * input makes the kernel send RST instead, which is the other case.
     */
    void drop() {
        dropped = true;
        synchronized (stallLock) {
            stallLock.notifyAll();
        }
        try {
            socket.setSoTimeout(DROP_DRAIN_TIMEOUT_MILLIS);
            socket.shutdownOutput();
        } catch (IOException e) {
            closeQuietly();
        }
    }

    /** Abortive close: SO_LINGER 0 makes close() send RST, as a crashed server would. */
    void reset() {
        dropped = true;
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException e) {
            // closing anyway
        }
        closeQuietly();
    }

    void closeQuietly() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to release
        }
    }
}
