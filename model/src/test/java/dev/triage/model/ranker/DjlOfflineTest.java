package dev.triage.model.ranker;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** Someone who switched DJL's offline mode or tracking opt-out off gets an error, not a tokenizer that calls home. */
class DjlOfflineTest {

    @Test
    void aSwitchTurnedOffIsRefused() {
        assumeTrue(System.getenv(DjlOffline.OFFLINE_VARIABLE) == null && System.getenv(DjlOffline.OPT_OUT_TRACKING) == null,
                "DJL's switches are set in the environment, which overrides the properties this test sets");
        for (String property : new String[] {DjlOffline.OFFLINE_PROPERTY, DjlOffline.OPT_OUT_TRACKING}) {
            String saved = System.getProperty(property);
            System.setProperty(property, "false");
            try {
                IllegalStateException e = assertThrows(IllegalStateException.class, DjlOffline::enforce);
                assertTrue(e.getMessage().contains("expected: unset or true"), e.getMessage());
            } finally {
                if (saved == null) {
                    System.clearProperty(property);
                } else {
                    System.setProperty(property, saved);
                }
            }
        }
        DjlOffline.enforce();
    }
}
