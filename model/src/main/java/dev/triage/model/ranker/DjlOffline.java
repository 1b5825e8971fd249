package dev.triage.model.ranker;

import ai.djl.util.Utils;

/**
 * Keeps DJL's HuggingFace tokenizer off the network. DJL calls home on every
 * {@code HuggingFaceTokenizer.newInstance} ({@code Ec2Utils.callHome}: the EC2 metadata address,
 * then a telemetry URL) unless its offline mode or {@code OPT_OUT_TRACKING} is on. Triage loads its
 * tokenizer from a local resource and must never open a connection for it, so {@link #enforce}
 * switches both on as system properties and refuses to go on when an environment variable (which
 * DJL reads first) switches them off again.
 */
final class DjlOffline {

    /** DJL's offline switch as a system property; {@code DJL_OFFLINE} is its environment form. */
    static final String OFFLINE_PROPERTY = "ai.djl.offline";
    static final String OFFLINE_VARIABLE = "DJL_OFFLINE";
    /** Read by DJL as an environment variable first, then as a system property of the same name. */
    static final String OPT_OUT_TRACKING = "OPT_OUT_TRACKING";

    private DjlOffline() {}

    /**
     * Sets the switches (where not set already) and checks with DJL's own reading of them that both
     * are on. Call before the first tokenizer is created.
     *
     * @throws IllegalStateException naming the setting that keeps DJL online
     */
    static synchronized void enforce() {
        if (System.getProperty(OFFLINE_PROPERTY) == null) {
            System.setProperty(OFFLINE_PROPERTY, "true");
        }
        if (System.getProperty(OPT_OUT_TRACKING) == null) {
            System.setProperty(OPT_OUT_TRACKING, "true");
        }
        if (!Utils.isOfflineMode()) {
            throw new IllegalStateException("DJL offline mode is off (" + OFFLINE_VARIABLE + "="
                    + System.getenv(OFFLINE_VARIABLE) + ", " + OFFLINE_PROPERTY + "=" + System.getProperty(OFFLINE_PROPERTY)
                    + "); the ranker's tokenizer runs only with it on (expected: unset or true)");
        }
        if (!Boolean.parseBoolean(Utils.getEnvOrSystemProperty(OPT_OUT_TRACKING))) {
            throw new IllegalStateException(OPT_OUT_TRACKING + " is " + Utils.getEnvOrSystemProperty(OPT_OUT_TRACKING)
                    + "; the ranker's tokenizer runs only with DJL's tracking off (expected: unset or true)");
        }
    }
}
