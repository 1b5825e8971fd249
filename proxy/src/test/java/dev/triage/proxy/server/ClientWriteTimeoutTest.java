package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.HeldWrites;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client write timeout on a channel whose socket takes a write only when the test says so. */
class ClientWriteTimeoutTest {

    private final HeldWrites socket = new HeldWrites();
    private final EmbeddedChannel channel = new EmbeddedChannel(socket, new ClientWriteTimeout(Duration.ofMillis(300)));

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    private void waitPast(Duration time) {
        long until = System.nanoTime() + time.toNanos();
        Await.until("time passes", () -> {
            channel.runPendingTasks();
            return System.nanoTime() > until || !channel.isOpen();
        });
    }

    @Test
    void aWriteTheSocketNeverTakesClosesTheConnection() {
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
        Await.until("closed", () -> {
            channel.runPendingTasks();
            return !channel.isOpen();
        });
    }

    @Test
    void aSlowButSteadyClientIsNotCutOff() {
        for (int i = 0; i < 6; i++) {
            channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
            waitPast(Duration.ofMillis(150));
            socket.pending.remove(0).setSuccess();
        }
        assertTrue(channel.isOpen(), "each write was taken within the limit");
        waitPast(Duration.ofMillis(600));
        assertTrue(channel.isOpen(), "nothing is pending: nothing is timed");
    }

    @Test
    void progressOnOneWriteDoesNotExcuseAnotherThatStalls() {
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {2}));
        waitPast(Duration.ofMillis(150));
        socket.pending.remove(0).setSuccess();
        assertTrue(channel.isOpen());
        waitPast(Duration.ofSeconds(5));
        assertFalse(channel.isOpen(), "the second write stalled past the limit");
    }
}
