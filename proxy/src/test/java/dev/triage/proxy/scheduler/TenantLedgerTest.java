package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TenantLedgerTest {

    @Test
    void labelsAreTheNamedTenantsTheFirstOthersAndOther() {
        TenantLedger ledger = new TenantLedger(Set.of("team-a"), 2);
        List<String> heard = new ArrayList<>();
        ledger.onNewLabel(heard::add);
        for (int i = 0; i < 1_000; i++) {
            ledger.served("key-" + i, 1_000_000_000L);
        }
        ledger.served("team-a", 2_000_000_000L);
        assertEquals(Set.of("team-a", "other", "key-0", "key-1"), ledger.labels());
        assertEquals(Set.copyOf(heard), ledger.labels());
        assertEquals(4, heard.size());
        assertEquals(998.0, ledger.account(TenantLedger.OTHER).servedSeconds(), 1e-9);
        assertEquals(2.0, ledger.account("team-a").servedSeconds(), 1e-9);
        assertEquals(1.0, ledger.account("key-1").servedSeconds(), 1e-9);
    }
}
