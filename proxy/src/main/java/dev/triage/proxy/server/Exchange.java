package dev.triage.proxy.server;

import io.netty.handler.codec.http.HttpContent;

/**
 * One request on a client connection, from its head to the end of its response. The
 * {@link ClientRequestReceiver} feeds it the request's body and tells it when the client is gone; the
 * exchange tells the receiver when it is over ({@link ClientRequestReceiver#exchangeDone}). All calls
 * happen on the connection's event loop.
 */
interface Exchange {

    /**
     * Begins the exchange, right after its head arrived and it became the connection's current
     * exchange (so that it may already answer and end itself here).
     */
    void start();

    /** A chunk of this request's body; ownership passes to the exchange. */
    void onRequestContent(HttpContent content);

    /** True once the request's last chunk has arrived: anything read after it is the next request. */
    boolean requestComplete();

    /**
     * True while the receiver should keep reading the client: to gather a body, or, once the request
     * is complete, to notice a client that disconnects. False while the exchange paces reads itself
     * (a body streamed upstream with backpressure).
     */
    boolean receiverReads();

    /** The client's connection closed before the exchange was over. */
    void onClientGone();
}
