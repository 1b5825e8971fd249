package dev.triage.proxy.upstream;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Writes a backend's response to the client, message by message, through the call's
 * {@link UpstreamCall.ResponseRelay}, with the relay's backpressure: the backend connection is read
 * with {@code AUTO_READ} off (the pool lends it so), and its next message is asked for only once the
 * client's socket took the last one, so a slow client slows the backend's connection instead of
 * filling memory. Nothing is aggregated.
 *
 * <p>Runs on the client's event loop, as every method must be called.
 */
final class ClientResponseWriter {

    private final Channel client;
    private final UpstreamCall.ResponseRelay relay;
    private final Runnable readMore;
    private final Runnable relayed;
    private boolean headWritten;
    private boolean stopped;

    /**
     * @param client the channel the relay writes to, flushed here
     * @param readMore asks the backend for its next message
     * @param relayed runs once the client's socket took the response's last message
     */
    ClientResponseWriter(Channel client, UpstreamCall.ResponseRelay relay, Runnable readMore, Runnable relayed) {
        this.client = client;
        this.relay = relay;
        this.readMore = readMore;
        this.relayed = relayed;
    }

    /** True once a response head has been passed to the relay: from then on, an error can only close the client. */
    boolean headWritten() {
        return headWritten;
    }

    /**
     * Passes one message of the response on; takes ownership of it. The last is flushed at once;
     * the others when {@link #flush} is called at the end of the backend read that brought them, so
     * that a response read at one go reaches the client in one write.
     */
    void write(HttpObject message) {
        if (message instanceof HttpResponse) {
            headWritten = true;
        }
        boolean last = message instanceof LastHttpContent;
        relay.relay(message).addListener(f -> {
            if (!f.isSuccess()) {
                return; // The client is gone; its channel's closing ends the exchange.
            }
            if (last) {
                relayed.run();
            } else if (!stopped) {
                readMore.run();
            }
        });
        if (last) {
            client.flush();
        }
    }

    /** Sends what {@link #write} has left unflushed. */
    void flush() {
        client.flush();
    }

    /**
     * The backend is done with the call: writes still completing read it no more (the response's
     * last message, if written, still reports {@code relayed}).
     */
    void stop() {
        stopped = true;
    }
}
