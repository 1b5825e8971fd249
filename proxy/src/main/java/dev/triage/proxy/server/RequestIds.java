package dev.triage.proxy.server;

import io.netty.handler.codec.http.HttpRequest;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The id a request goes by in the log, the queue view and the {@code x-triage-request-id} header:
 * the client's own {@code x-request-id} when it sends a reasonable one, else 16 random hex digits.
 */
final class RequestIds {

    private static final int MAX_CLIENT_ID = 64;

    private RequestIds() {}

    static String of(HttpRequest request) {
        String client = request.headers().get("x-request-id");
        if (client != null && !client.isEmpty() && client.length() <= MAX_CLIENT_ID && isPlain(client)) {
            return client;
        }
        return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    }

    /** Letters, digits and {@code -_.:} only, so an id cannot forge log fields. */
    private static boolean isPlain(String id) {
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && "-_.:".indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }
}
