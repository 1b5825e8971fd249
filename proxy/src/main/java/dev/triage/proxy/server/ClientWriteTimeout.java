package dev.triage.proxy.server;

import dev.triage.proxy.concurrent.StallTimer;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a client connection whose socket takes none of the bytes written to it for the client
 * write timeout. A relay reads its backend only as fast as the client takes the response, so a
 * client that stops reading would otherwise hold its backend slot, and the backend connection,
 * for as long as it stays connected; closing it ends the exchange as a departed client does.
 *
 * <p>The wait is timed from a write until that write, or any other, completes: a client that reads
 * slowly but steadily is not cut off, whatever the length of the response.
 *
 * <p>The connection is reset rather than closed: a close would leave what the kernel's send buffer
 * holds (megabytes on loopback) to be delivered to a client that is not reading, at the pace of
 * TCP's zero-window probes, minutes apart, with the socket and its buffer kept until then. The
 * client's answer is cut short either way.
 */
final class ClientWriteTimeout extends ChannelDuplexHandler {

    private static final Logger log = LoggerFactory.getLogger(ClientWriteTimeout.class);

    private final Duration limit;
    private StallTimer timer;
    private int pendingWrites;

    ClientWriteTimeout(Duration limit) {
        this.limit = limit;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = new StallTimer(ctx.executor(), limit, waitedNanos -> expired(ctx, waitedNanos));
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timer.stop();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ChannelPromise written = promise.unvoid();
        pendingWrites++;
        timer.waiting();
        written.addListener(f -> written());
        ctx.write(msg, written);
    }

    private void written() {
        pendingWrites--;
        timer.answered();
        if (pendingWrites > 0) {
            timer.waiting(); // progress was made: the writes still pending get a wait of their own
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        timer.stop();
        ctx.fireChannelInactive();
    }

    private void expired(ChannelHandlerContext ctx, long waitedNanos) {
        log.debug("client {} took no response bytes for {} ms; resetting the connection", ctx.channel().remoteAddress(),
                TimeUnit.NANOSECONDS.toMillis(waitedNanos));
        ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
        ctx.close();
    }
}
