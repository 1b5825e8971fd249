package dev.triage.proxy;

import dev.triage.model.classifier.ModelLoadException;
import dev.triage.proxy.config.ConfigException;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.config.TriageConfig;

/** {@code triage [--key value]...}: runs the proxy until the process is stopped. */
public final class Main {

    private Main() {}

    public static void main(String[] args) throws InterruptedException {
        if (ConfigLoader.wantsHelp(args)) {
            System.out.print(ConfigLoader.usage());
            return;
        }
        TriageConfig config;
        try {
            config = ConfigLoader.load(args, System.getenv());
        } catch (ConfigException e) {
            System.err.println("triage: " + e.getMessage());
            System.exit(2);
            return;
        }
        Triage triage;
        try {
            triage = Triage.start(config);
        } catch (ModelLoadException e) {
            System.err.println("triage: " + e.getMessage());
            System.exit(2);
            return;
        } catch (Throwable e) {
            // Whatever stops the start (the listen address in use, a native library that cannot load) is
            // told in one line; Triage has released what it had started, so nothing keeps the process up.
            String message = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            System.err.println("triage: " + message);
            System.exit(1);
            return;
        }
        Runnable stop = () -> {
            triage.shutdown();
            // A stop signal that was handled gracefully is a clean exit, not death by signal (143).
            Runtime.getRuntime().halt(0);
        };
        StopSignals.install(stop);
        // For an exit that does not come through those signals.
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "triage-shutdown"));
    }
}
