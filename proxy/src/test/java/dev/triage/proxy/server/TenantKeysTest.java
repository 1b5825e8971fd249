package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

class TenantKeysTest {

    private static HttpHeaders headers(String... namesAndValues) {
        HttpHeaders headers = new DefaultHttpHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            headers.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return headers;
    }

    @Test
    void anApiKeyIsKnownByItsHashAndNeverShown() {
        String key = "sk-proj-4f1c9a0e77b24c1d9e0f";
        String tenant = TenantKeys.byApiKey().of(headers("Authorization", "Bearer " + key));
        assertTrue(tenant.matches("key-[0-9a-f]{16}"), tenant);
        for (int i = 0; i + 4 <= key.length(); i++) {
            assertFalse(tenant.contains(key.substring(i, i + 4)), "the tenant " + tenant + " holds a piece of the key");
        }
        assertEquals(tenant, TenantKeys.byApiKey().of(headers("authorization", "bearer  " + key)), "the same key, the same tenant");
        assertNotEquals(tenant, TenantKeys.byApiKey().of(headers("Authorization", "Bearer " + key + "x")));
    }

    @Test
    void aRequestWithoutAKeyIsTheDefaultTenants() {
        assertEquals("default", TenantKeys.byApiKey().of(headers()));
        assertEquals("default", TenantKeys.byApiKey().of(headers("Authorization", "Basic dXNlcjpwYXNz")));
        assertEquals("default", TenantKeys.byApiKey().of(headers("Authorization", "Bearer ")));
        assertEquals("default", TenantKeys.byHeader("X-Team").of(headers("Authorization", "Bearer k")));
    }

    @Test
    void aHeaderNamesItsTenantWhenItIsAPlainName() {
        TenantKeys byTeam = TenantKeys.byHeader("X-Team");
        assertEquals("team-a", byTeam.of(headers("x-team", "team-a")));
        String odd = byTeam.of(headers("X-Team", "team a; drop"));
        assertTrue(odd.matches("key-[0-9a-f]{16}"), odd);
        assertTrue(byTeam.of(headers("X-Team", "t".repeat(65))).startsWith("key-"));
        assertTrue(byTeam.of(headers("X-Team", "other")).startsWith("key-"), "not counted with the tenants past the label bound");
    }

    @Test
    void withFairSharesOffEveryoneIsTheDefaultTenant() {
        assertEquals("default", TenantKeys.NONE.of(headers("Authorization", "Bearer k", "X-Team", "a")));
    }
}
