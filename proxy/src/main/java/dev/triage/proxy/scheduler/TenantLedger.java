package dev.triage.proxy.scheduler;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The backend time each tenant has been served, under a bounded set of labels, for the metrics: the
 * tenants named in the configuration, then the first {@code maxOthers} others seen, and every tenant
 * after those as {@value #OTHER}. Written by the dispatch thread, read by anyone.
 *
 * <pre>{@code
 * TenantLedger ledger = new TenantLedger(weights.named(), 16);
 * ledger.onNewLabel(label -> registerMeters(label));
 * ledger.served("team-a", nanos);
 * }</pre>
 */
public final class TenantLedger {

    /** The label of every tenant beyond the bound. */
    public static final String OTHER = "other";

    private final int maxLabels;
    private final Map<String, Account> accounts = new ConcurrentHashMap<>();
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

    /** What one label has been served. */
    public static final class Account {
        private final LongAdder servedNanos = new LongAdder();
        private final LongAdder dispatched = new LongAdder();

        /** Seconds of backend time its jobs held a slot, counted when each slot was released. */
        public double servedSeconds() {
            return servedNanos.sum() / 1e9;
        }

        /** Jobs that were given a slot. */
        public long dispatched() {
            return dispatched.sum();
        }
    }

    /**
     * @param named the tenants that always have a label of their own
     * @param maxOthers how many other tenants get a label of their own, first seen first
     */
    public TenantLedger(Set<String> named, int maxOthers) {
        if (maxOthers < 0) {
            throw new IllegalArgumentException("maxOthers: " + maxOthers + " (expected: >= 0)");
        }
        named.forEach(tenant -> accounts.put(tenant, new Account()));
        accounts.put(OTHER, new Account());
        this.maxLabels = accounts.size() + maxOthers;
    }

    /** Hears each label, those that exist already included, once: where the metrics register its meters. */
    public void onNewLabel(Consumer<String> listener) {
        listeners.add(listener);
        accounts.keySet().forEach(listener);
    }

    /** The label the tenant's time is counted under; labels are made on the dispatch thread only. */
    private String label(String tenant) {
        if (accounts.containsKey(tenant)) {
            return tenant;
        }
        if (accounts.size() >= maxLabels) {
            return OTHER;
        }
        accounts.put(tenant, new Account());
        listeners.forEach(listener -> listener.accept(tenant));
        return tenant;
    }

    /** The account of a label that exists; null otherwise. */
    public Account account(String label) {
        return accounts.get(label);
    }

    /** The labels in use. */
    public Set<String> labels() {
        return Set.copyOf(accounts.keySet());
    }

    void dispatched(String tenant) {
        accounts.get(label(tenant)).dispatched.increment();
    }

    void served(String tenant, long nanos) {
        accounts.get(label(tenant)).servedNanos.add(nanos);
    }
}
