package dev.triage.proxy.server;

import dev.triage.proxy.learning.Sha256Prefix;
import dev.triage.proxy.scheduler.JobTag;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.HexFormat;

/**
 * Whom a request is served for, when the backend's time is shared among tenants: by default a hash of
 * its API key ({@code Authorization: Bearer ...}), or the value of a configured header such as
 * {@code X-Team}. A request without one belongs to {@link JobTag#DEFAULT_TENANT}. The key itself is
 * never kept: only {@code key-} and the first 64 bits of its SHA-256, which name the tenant in the
 * metrics and the configuration's weights. A header value that is not a plain name ({@link
 * JobTag#isTenantName}: letters, digits, {@code .}, {@code _}, {@code -}, at most 64, not {@code other})
 * is hashed the same way, so no client text reaches a label as it was sent.
 *
 * <pre>{@code
 * TenantKeys.byApiKey().of(headers);          // "key-3f9a0c2e5b7d1e48"
 * TenantKeys.byHeader("X-Team").of(headers);  // "team-a"
 * }</pre>
 */
public final class TenantKeys {

    /** Every request is the default tenant's: fair shares are off. */
    public static final TenantKeys NONE = new TenantKeys(null, false);

    private static final String BEARER = "Bearer ";

    private final String header;
    private final boolean enabled;

    private TenantKeys(String header, boolean enabled) {
        this.header = header;
        this.enabled = enabled;
    }

    /** Tenants told apart by their API keys. */
    public static TenantKeys byApiKey() {
        return new TenantKeys(null, true);
    }

    /** Tenants named by a header of the request. */
    public static TenantKeys byHeader(String name) {
        return new TenantKeys(name, true);
    }

    /** The tenant of a request with these headers. */
    public String of(HttpHeaders headers) {
        if (!enabled) {
            return JobTag.DEFAULT_TENANT;
        }
        if (header != null) {
            String value = headers.get(header, "").trim();
            if (value.isEmpty()) {
                return JobTag.DEFAULT_TENANT;
            }
            return JobTag.isTenantName(value) ? value : hashed(value);
        }
        String authorization = headers.get(HttpHeaderNames.AUTHORIZATION, "");
        if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return JobTag.DEFAULT_TENANT;
        }
        String key = authorization.substring(BEARER.length()).trim();
        return key.isEmpty() ? JobTag.DEFAULT_TENANT : hashed(key);
    }

    private static String hashed(String secret) {
        return "key-" + HexFormat.of().toHexDigits(Sha256Prefix.of(secret));
    }
}
