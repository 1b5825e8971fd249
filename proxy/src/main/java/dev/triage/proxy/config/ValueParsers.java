package dev.triage.proxy.config;

import dev.triage.model.SpeechTokenRates;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsers for the value syntaxes configuration accepts; each throws {@link ConfigException}. */
final class ValueParsers {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?");

    private ValueParsers() {}

    /**
     * The longest duration any option takes: timers add durations to {@link System#nanoTime}, which a
     * value near {@code Long.MAX_VALUE} nanoseconds would wrap into the past (a deadline passed at once,
     * a dispatch thread that wakes for ever). An option with no limit says {@code off}.
     */
    static final Duration LONGEST = Duration.ofDays(365);

    /**
     * {@code 500ms}, {@code 60s}, {@code 1.5s}, {@code 2m}, {@code 1h}; a bare number is seconds. Zero,
     * or from 1 ms to {@link #LONGEST}: timers count whole milliseconds, so a shorter one would be 0.
     */
    static Duration duration(String key, String value) {
        Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw ConfigException.invalid(key, value, "a duration such as 500ms, 60s, 2m or 1h");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double nanos = amount * switch (unit) {
            case "ms" -> 1e6;
            case "m" -> 60e9;
            case "h" -> 3600e9;
            default -> 1e9;
        };
        if (nanos > LONGEST.toNanos()) {
            throw ConfigException.invalid(key, value, "a duration of at most 365 days");
        }
        if (nanos > 0 && nanos < 1e6) {
            throw ConfigException.invalid(key, value, "a duration of at least 1ms");
        }
        return Duration.ofNanos((long) nanos);
    }

    /** Like {@link #duration}, and {@code off} or {@code 0} for "disabled" ({@link Duration#ZERO}). */
    static Duration durationOrOff(String key, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("off") || v.equals("none")) {
            return Duration.ZERO;
        }
        return duration(key, value);
    }

    /** {@code 4MB}, {@code 512KB}, {@code 1048576}; K, M and G are powers of 1024. */
    static long size(String key, String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw ConfigException.invalid(key, value, "a size such as 512KB, 4MB or 1048576");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "b" : m.group(2);
        long factor = switch (unit.charAt(0)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1L;
        };
        return (long) (amount * factor);
    }

    /** A path starting with {@code /}, written as in a URL ({@code %20} for a space): the probe's request line carries it. */
    static String urlPath(String key, String value) {
        String path = value.trim();
        try {
            if (path.startsWith("/") && new URI("http://h" + path).getRawPath().startsWith("/")) {
                return path;
            }
        } catch (URISyntaxException e) {
            // refused below, as any path that is not one
        }
        throw ConfigException.invalid(key, value, "a path starting with /, written as in a URL (%20 for a space)");
    }

    /** {@code true} or {@code false}, any case. */
    static boolean bool(String key, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true") || v.equals("false")) {
            return v.equals("true");
        }
        throw ConfigException.invalid(key, value, "true or false");
    }

    /** {@code lang=κ} pairs separated by commas, over the defaults; empty for the defaults. */
    static SpeechTokenRates speechTokenRates(String key, String value) {
        SpeechTokenRates rates = SpeechTokenRates.defaults();
        if (value.isBlank()) {
            return rates;
        }
        for (String pair : value.split(",")) {
            int equals = pair.indexOf('=');
            if (equals < 0) {
                throw ConfigException.invalid(key, value, "language=tokens per second pairs, e.g. es=4.2,fr=3.6");
            }
            try {
                rates = rates.withRate(pair.substring(0, equals).trim(), decimal(key, pair.substring(equals + 1)));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(key + ": " + e.getMessage());
            }
        }
        return rates;
    }

    static int integer(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw ConfigException.invalid(key, value, "an integer");
        }
    }

    static double decimal(String key, String value) {
        try {
            double d = Double.parseDouble(value.trim());
            if (Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ConfigException.invalid(key, value, "a number");
    }

    /** {@code host:port}, {@code :port} (all interfaces) or a bare port (loopback). */
    static InetSocketAddress listenAddress(String key, String value) {
        String v = value.trim();
        int colon = v.lastIndexOf(':');
        String host = colon < 0 ? "127.0.0.1" : v.substring(0, colon);
        String port = colon < 0 ? v : v.substring(colon + 1);
        if (host.isEmpty()) {
            host = "0.0.0.0";
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw ConfigException.invalid(key, value, "host:port, :port or a port");
        }
        if (p < 0 || p > 65535) {
            throw ConfigException.invalid(key, value, "a port in 0-65535");
        }
        return InetSocketAddress.createUnresolved(host, p);
    }

    /** An {@code http://host[:port][/prefix]} URL. */
    static URI httpUrl(String key, String value) {
        String shown = withoutCredentials(value);
        URI uri;
        try {
            uri = new URI(value.trim());
        } catch (URISyntaxException e) {
            throw ConfigException.invalid(key, shown, "an http:// URL");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw ConfigException.invalid(key, shown, "an http://host[:port][/path] URL");
        }
        if (uri.getRawUserInfo() != null) {
            throw ConfigException.invalid(key, shown, "a URL without credentials: Triage would not send them; a backend"
                    + " that wants a key gets each client's own Authorization header, which Triage passes on");
        }
        return uri;
    }

    /**
     * {@code value} with any {@code user:password@} of a URL in it replaced, fit to print: all up to
     * the last {@code @} before the next space, since a password written unescaped may hold
     * {@code /}, {@code ?}, {@code #}, {@code ,} or {@code @} (an {@code @} in a backend's options is
     * hidden with it: better too much than a password).
     */
    static String withoutCredentials(String value) {
        return value.replaceAll("(?<=://)\\S*@", "<redacted>@");
    }

    /**
     * A backend's {@link #httpUrl}, refused when its path ends where an API's root does ({@code /v1},
     * {@code /api}): Triage forwards each client's own path, which starts with that root already, so
     * an OpenAI base URL copied here would send every request to {@code /v1/v1/...}.
     */
    static URI backendUrl(String key, String value) {
        URI uri = httpUrl(key, value);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
        int lastSlash = path.lastIndexOf('/');
        String root = path.substring(lastSlash + 1);
        if (root.equalsIgnoreCase("v1") || root.equalsIgnoreCase("api")) {
            String server = uri.getScheme() + "://" + uri.getRawAuthority() + path.substring(0, lastSlash);
            throw ConfigException.invalid(key, value, "the server's URL without /" + root
                    + ", as Triage forwards each client's own path (/" + root + "/...): here " + server);
        }
        return uri;
    }
}
