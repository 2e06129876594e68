package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.apache.iggy.client.async.tcp.AsyncTcpConnection.IggyResponseHandler;
import org.apache.iggy.exception.IggyConnectionClosedException;
import org.apache.iggy.exception.IggyServerException;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * {@link DirectRequestHandler} in front of the client's response handler, as the sink sets them up on the client's
 * channel (behind the decoder, left out here: each inbound message is one whole answer, as the decoder passes them
 * on). The client's requests are written as its {@code sendFrame} writes them: its future queued in its handler, then the
 * frame written from the tail. Answers come back as the server sends them: in request order.
 */
class DirectRequestHandlerTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final DirectRequestHandler direct = new DirectRequestHandler(channel);
    private final IggyResponseHandler clients = new IggyResponseHandler();

    DirectRequestHandlerTest() {
        channel.pipeline().addLast(DirectRequestHandler.NAME, direct);
        channel.pipeline().addLast("responseHandler", clients);
    }

    /** What the client's {@code sendFrame} does for one request. */
    private CompletableFuture<ByteBuf> clientSends(int code, String payload) {
        CompletableFuture<ByteBuf> answer = new CompletableFuture<>();
        clients.enqueueRequest(answer);
        byte[] p = payload.getBytes(StandardCharsets.UTF_8);
        channel.writeAndFlush(Unpooled.buffer().writeIntLE(4 + p.length).writeIntLE(code).writeBytes(p));
        return answer;
    }

    private CompletableFuture<ByteBuf> sinkSends(int code, String payload) {
        CompletableFuture<ByteBuf> answer = direct.send(code, Unpooled.copiedBuffer(payload, StandardCharsets.UTF_8));
        channel.runPendingTasks();
        return answer;
    }

    private void serverAnswers(int status, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        channel.writeInbound(Unpooled.buffer().writeIntLE(status).writeIntLE(b.length).writeBytes(b));
    }

    private static String text(CompletableFuture<ByteBuf> answer) throws Exception {
        ByteBuf body = answer.getNow(null);
        assertThat(body).as("answered").isNotNull();
        try {
            return body.toString(StandardCharsets.UTF_8);
        } finally {
            body.release();
        }
    }

    private List<String> written() {
        List<String> frames = new ArrayList<>();
        for (ByteBuf out; (out = channel.readOutbound()) != null; ) {
            int length = out.getIntLE(0);
            frames.add(out.getIntLE(4) + ":" + out.toString(8, length - 4, StandardCharsets.UTF_8));
            assertThat(out.readableBytes()).as("frame length").isEqualTo(4 + length);
            out.release();
        }
        return frames;
    }

    @Test
    void each_answer_goes_to_the_request_it_answers_however_the_sinks_and_the_clients_requests_interleave()
            throws Exception {
        Random random = new Random(13);
        for (int round = 0; round < 100; round++) {
            List<CompletableFuture<ByteBuf>> answers = new ArrayList<>();
            List<String> expected = new ArrayList<>();
            int n = 1 + random.nextInt(6);
            for (int i = 0; i < n; i++) {
                String what = "r" + round + "-" + i;
                boolean sinks = random.nextBoolean();
                answers.add(sinks ? sinkSends(100, what) : clientSends(121, what));
                expected.add((sinks ? "100:" : "121:") + what);
            }
            assertThat(written()).as("round %d: the frames on the wire, in order", round).isEqualTo(expected);
            for (int i = 0; i < n; i++) serverAnswers(0, "answer to r" + round + "-" + i);

            for (int i = 0; i < n; i++) {
                assertThat(text(answers.get(i))).as("round %d request %d", round, i)
                        .isEqualTo("answer to r" + round + "-" + i);
            }
        }
    }

    @Test
    void an_error_status_fails_the_sinks_request_with_the_servers_code_and_the_next_answer_is_still_routed()
            throws Exception {
        CompletableFuture<ByteBuf> poll = sinkSends(100, "p");
        CompletableFuture<ByteBuf> store = clientSends(121, "s");
        serverAnswers(5006, "");
        serverAnswers(0, "stored");

        Throwable failure = catchThrowable(poll::get);
        assertThat(failure).isInstanceOf(ExecutionException.class).cause().isInstanceOf(IggyServerException.class);
        assertThat(IggyFailures.errorCode(failure)).isEqualTo(5006);
        assertThat(text(store)).isEqualTo("stored");
    }

    @Test
    void the_sinks_pending_requests_fail_when_the_channel_closes_and_later_ones_fail_at_once() {
        CompletableFuture<ByteBuf> first = sinkSends(100, "a");
        CompletableFuture<ByteBuf> second = sinkSends(100, "b");
        assertThat(written()).hasSize(2);

        channel.close();
        CompletableFuture<ByteBuf> late = direct.send(100, Unpooled.copiedBuffer("c", StandardCharsets.UTF_8));
        channel.runPendingTasks();

        for (CompletableFuture<ByteBuf> f : List.of(first, second, late)) {
            assertThat(catchThrowable(f::get)).cause().isInstanceOf(IggyConnectionClosedException.class);
        }
        assertThat(direct.usable()).isFalse();
    }

    @Test
    void an_answer_to_a_request_given_up_on_is_taken_off_the_channel_and_freed() throws Exception {
        CompletableFuture<ByteBuf> abandoned = sinkSends(100, "slow");
        CompletableFuture<ByteBuf> next = clientSends(121, "next");
        abandoned.cancel(false);

        ByteBuf late = Unpooled.buffer().writeIntLE(0).writeIntLE(4).writeBytes(new byte[] {1, 2, 3, 4});
        channel.writeInbound(late);
        serverAnswers(0, "for the client");

        assertThat(late.refCnt()).as("the late answer is released").isZero();
        assertThat(text(next)).isEqualTo("for the client");
    }

    @Test
    void the_sinks_frame_is_the_clients_layout_length_code_payload() {
        direct.send(100, Unpooled.wrappedBuffer(new byte[] {9, 8, 7}));
        channel.runPendingTasks();

        ByteBuf out = channel.readOutbound();
        assertThat(ByteBufUtil.getBytes(out)).containsExactly(7, 0, 0, 0, 100, 0, 0, 0, 9, 8, 7);
        out.release();
    }
}
