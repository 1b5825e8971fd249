package dev.triage.proxy.server;

import io.netty.handler.codec.http.HttpMethod;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which requests Triage schedules, which it answers itself, and which it passes through. A path is
 * matched by its canonical form ({@link RequestTarget}), without its query; a path that is another
 * spelling of one of Triage's routes ({@code /v1//chat/%63ompletions/}) is refused, so that no spelling
 * a backend would serve as that route can pass through unscheduled. Scheduled routes take {@code POST} only; any other method on
 * them is passed through, so the backend answers as it would. Paths under {@value #ADMIN_PREFIX} are
 * Triage's own: one not listed is answered 404, never sent to the backend. Everything else not listed
 * here is passed through (streamed, never queued, never holding a backend slot), unless the table
 * passes nothing through, as the admin API's own listener does.
 *
 * <pre>{@code
 * RouteTable routes = RouteTable.builder()
 *         .scheduled("/v1/chat/completions", RouteKind.CHAT)
 *         .local(HttpMethod.GET, "/healthz", health)
 *         .build();
 * }</pre>
 */
public final class RouteTable {

    /** Where a request goes. */
    public sealed interface Route permits Scheduled, Local, LocalWrongMethod, LocalNotFound, NonCanonical, PassThrough {}

    public record Scheduled(RouteKind kind) implements Route {}

    /** @param admin true for Triage's admin API: local-only, or guarded by the admin token */
    public record Local(LocalRoute handler, boolean admin) implements Route {}

    /** A local path asked with a method it does not answer. */
    public record LocalWrongMethod(Set<HttpMethod> allowed) implements Route {}

    /** A path Triage keeps to itself (its admin namespace; any path, on a listener passing nothing through) but does not answer. */
    public record LocalNotFound() implements Route {}

    /** Another spelling of one of Triage's routes: refused, naming the spelling to use. */
    public record NonCanonical(String canonicalPath) implements Route {}

    public record PassThrough() implements Route {}

    /** The admin API's namespace. */
    public static final String ADMIN_PREFIX = "/triage/";

    private static final PassThrough PASS_THROUGH = new PassThrough();
    private static final LocalNotFound LOCAL_NOT_FOUND = new LocalNotFound();

    private final Map<String, RouteKind> scheduled;
    private final Map<String, Map<HttpMethod, Local>> local;
    private final boolean passesThrough;

    private RouteTable(Map<String, RouteKind> scheduled, Map<String, Map<HttpMethod, Local>> local, boolean passesThrough) {
        this.scheduled = Map.copyOf(scheduled);
        this.local = Map.copyOf(local);
        this.passesThrough = passesThrough;
    }

    /**
     * The scheduled routes of the OpenAI and Ollama APIs that Triage knows how to size, with
     * llama-server's own spellings of them: a generation on any of these holds a backend slot, and
     * passed through it would run beside the ones Triage schedules.
     */
    public static Builder standard() {
        return builder()
                .scheduled("/v1/chat/completions", RouteKind.CHAT)
                .scheduled("/v1/completions", RouteKind.CHAT)
                .scheduled("/v1/responses", RouteKind.CHAT)
                .scheduled("/responses", RouteKind.CHAT)
                .scheduled("/chat/completions", RouteKind.CHAT)
                .scheduled("/completions", RouteKind.CHAT)
                .scheduled("/completion", RouteKind.CHAT)
                .scheduled("/api/chat", RouteKind.CHAT)
                .scheduled("/api/generate", RouteKind.CHAT)
                .scheduled("/v1/audio/transcriptions", RouteKind.AUDIO)
                .scheduled("/v1/audio/translations", RouteKind.AUDIO);
    }

    public static Builder builder() {
        return new Builder();
    }

    Route resolve(HttpMethod method, RequestTarget target) {
        Route route = resolve(method, target.canonicalPath());
        return target.isCanonical() || route instanceof PassThrough ? route : new NonCanonical(target.canonicalPath());
    }

    private Route resolve(HttpMethod method, String path) {
        Map<HttpMethod, Local> byMethod = local.get(path);
        if (byMethod != null) {
            Local route = byMethod.get(method.equals(HttpMethod.HEAD) ? HttpMethod.GET : method);
            return route != null ? route : new LocalWrongMethod(byMethod.keySet());
        }
        RouteKind kind = scheduled.get(path);
        if (kind != null && method.equals(HttpMethod.POST)) {
            return new Scheduled(kind);
        }
        return passesThrough && !path.startsWith(ADMIN_PREFIX) ? PASS_THROUGH : LOCAL_NOT_FOUND;
    }

    /** The path of a request URI: without its query or fragment. */
    static String pathOf(String uri) {
        int end = uri.length();
        int query = uri.indexOf('?');
        if (query >= 0) {
            end = query;
        }
        int fragment = uri.indexOf('#');
        if (fragment >= 0 && fragment < end) {
            end = fragment;
        }
        return uri.substring(0, end);
    }

    /** Collects routes; later definitions of the same path and method replace earlier ones. */
    public static final class Builder {
        private final Map<String, RouteKind> scheduled = new LinkedHashMap<>();
        private final Map<String, Map<HttpMethod, Local>> local = new LinkedHashMap<>();
        private boolean passesThrough = true;

        /** Paths not listed are answered 404 instead of passed through (a listener for the admin API alone). */
        public Builder passingNothingThrough() {
            passesThrough = false;
            return this;
        }

        public Builder scheduled(String path, RouteKind kind) {
            scheduled.put(path, kind);
            return this;
        }

        /** A route Triage answers itself, open to anyone who can reach the proxy. */
        public Builder local(HttpMethod method, String path, LocalRoute handler) {
            local.computeIfAbsent(path, p -> new LinkedHashMap<>()).put(method, new Local(handler, false));
            return this;
        }

        /** A route of Triage's admin API: answered only as {@link AdminAccess} allows. */
        public Builder admin(HttpMethod method, String path, LocalRoute handler) {
            local.computeIfAbsent(path, p -> new LinkedHashMap<>()).put(method, new Local(handler, true));
            return this;
        }

        public RouteTable build() {
            Map<String, Map<HttpMethod, Local>> frozen = new LinkedHashMap<>();
            local.forEach((path, methods) -> frozen.put(path, Map.copyOf(methods)));
            return new RouteTable(scheduled, frozen, passesThrough);
        }
    }
}
