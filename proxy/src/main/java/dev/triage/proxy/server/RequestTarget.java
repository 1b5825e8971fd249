package dev.triage.proxy.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * A request's target, read as the servers behind Triage read it, so that no spelling of a Triage
 * route slips past as something else. Absolute-form ({@code POST http://host/v1/chat/completions})
 * is taken in origin-form, as RFC 9112 asks of a server. The canonical path is the one a lenient
 * backend would route by: percent-escapes decoded (uvicorn, Go and cpp-httplib decode {@code %63}
 * and even {@code %2F}), repeated slashes and dot segments collapsed, {@code ;parameters} and a
 * trailing slash dropped (FastAPI redirects to the path without it).
 *
 * <pre>{@code
 * RequestTarget target = RequestTarget.parse("/v1//chat/%63ompletions/?x=1");
 * target.canonicalPath();  // "/v1/chat/completions"
 * target.isCanonical();    // false: a different spelling of a route, which Triage refuses
 * }</pre>
 *
 * @param originForm the target to forward: the path and query as sent, without scheme and host
 * @param path the path as sent (still escaped), without query
 * @param canonicalPath the path a backend would route by
 */
record RequestTarget(String originForm, String path, String canonicalPath) {

    /** A target that is neither origin-form nor absolute-form (authority-form, or {@code *}). */
    static final class Unroutable extends Exception {
        Unroutable(String message) {
            super(message, null, false, false);
        }
    }

    /** True when the path is spelled the way routes are: the canonical path itself. */
    boolean isCanonical() {
        return path.equals(canonicalPath);
    }

    static RequestTarget parse(String uri) throws Unroutable {
        String origin = uri;
        if (!origin.startsWith("/")) {
            String lower = origin.toLowerCase(Locale.ROOT);
            int scheme = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
            if (scheme < 0) {
                throw new Unroutable("the request target must be a path or an http:// URL: " + abbreviated(uri));
            }
            int pathStart = indexOfAny(origin, "/?#", scheme);
            origin = pathStart < 0 ? "/" : origin.charAt(pathStart) == '/' ? origin.substring(pathStart)
                    : "/" + origin.substring(pathStart);
        }
        String path = RouteTable.pathOf(origin);
        return new RequestTarget(origin, path, canonical(path));
    }

    private static String canonical(String path) {
        if (isPlain(path)) {
            return path; // as almost every request spells it: no need to take it apart
        }
        String decoded = percentDecoded(path);
        Deque<String> segments = new ArrayDeque<>();
        for (String segment : decoded.split("/")) {
            int parameters = segment.indexOf(';');
            String name = parameters >= 0 ? segment.substring(0, parameters) : segment;
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                segments.pollLast();
            } else {
                segments.addLast(name);
            }
        }
        return "/" + String.join("/", segments);
    }

    /**
     * True when the path has nothing to decode or collapse: no escape, no parameters, no empty,
     * dot or trailing segment.
     */
    private static boolean isPlain(String path) {
        int length = path.length();
        if (length == 0 || path.charAt(0) != '/' || (length > 1 && path.charAt(length - 1) == '/')) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = path.charAt(i);
            if (c == '%' || c == ';') {
                return false;
            }
            if (c == '/' && i + 1 < length && (path.charAt(i + 1) == '/' || path.charAt(i + 1) == '.')) {
                return false;
            }
        }
        return true;
    }

    private static String percentDecoded(String path) {
        if (path.indexOf('%') < 0) {
            return path;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            int high = i + 2 < path.length() ? Character.digit(path.charAt(i + 1), 16) : -1;
            int low = high >= 0 ? Character.digit(path.charAt(i + 2), 16) : -1;
            if (c == '%' && low >= 0) {
                bytes.write(high * 16 + low);
                i += 2;
            } else {
                bytes.write(c); // the request line is ASCII (Netty's decoder reads it so)
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int indexOfAny(String text, String characters, int from) {
        for (int i = from; i < text.length(); i++) {
            if (characters.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    private static String abbreviated(String uri) {
        return uri.length() <= 64 ? uri : uri.substring(0, 64) + "...";
    }
}
