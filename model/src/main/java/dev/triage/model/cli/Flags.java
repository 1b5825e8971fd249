package dev.triage.model.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The command lines of Triage's tools (training, evaluation, benchmarks): {@code --name value} (or
 * {@code --name=value}) pairs after positional words. Every flag read is marked; {@link #finish()}
 * rejects the ones no one read, so a typo never passes silently. Bad values fail with
 * {@code --name: value (expected: ...)}.
 */
public final class Flags {

    private final List<String> positional = new ArrayList<>();
    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<String> read = new ArrayList<>();

    private Flags() {}

    public static Flags parse(String[] args) {
        Flags flags = new Flags();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                flags.positional.add(arg);
                continue;
            }
            String name = arg.substring(2);
            String value;
            int equals = name.indexOf('=');
            if (equals >= 0) {
                value = name.substring(equals + 1);
                name = name.substring(0, equals);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("--" + name + ": no value (expected: --" + name + " VALUE)");
            }
            if (flags.values.put(name, value) != null) {
                throw new IllegalArgumentException("--" + name + " given twice");
            }
        }
        return flags;
    }

    public List<String> positional() {
        return List.copyOf(positional);
    }

    public Optional<String> optional(String name) {
        read.add(name);
        return Optional.ofNullable(values.get(name));
    }

    public String string(String name, String fallback) {
        return optional(name).orElse(fallback);
    }

    public String required(String name, String expected) {
        return optional(name).orElseThrow(() -> new IllegalArgumentException("--" + name + ": missing (expected: " + expected + ")"));
    }

    public Path path(String name, String fallback) {
        return Path.of(string(name, fallback));
    }

    public double number(String name, double fallback) {
        return optional(name).map(value -> parseNumber(name, value)).orElse(fallback);
    }

    public int integer(String name, int fallback) {
        return optional(name).map(value -> {
            try {
                return Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + ": " + value + " (expected: an integer)");
            }
        }).orElse(fallback);
    }

    /** An integer of at least 1: a count of runs, seeds or prompts. */
    public int positiveInteger(String name, int fallback) {
        int value = integer(name, fallback);
        if (value < 1) {
            throw new IllegalArgumentException("--" + name + ": " + value + " (expected: >= 1)");
        }
        return value;
    }

    /** A comma-separated list of numbers. */
    public List<Double> numbers(String name, List<Double> fallback) {
        return optional(name).map(value -> {
            List<Double> numbers = new ArrayList<>();
            for (String part : value.split(",")) {
                numbers.add(parseNumber(name, part));
            }
            return List.copyOf(numbers);
        }).orElse(fallback);
    }

    /** A comma-separated list of words. */
    public List<String> words(String name, List<String> fallback) {
        return optional(name).map(value -> List.of(value.trim().split("\\s*,\\s*"))).orElse(fallback);
    }

    /** Fails on any flag that was given but never read. */
    public void finish() {
        for (String name : values.keySet()) {
            if (!read.contains(name)) {
                throw new IllegalArgumentException("--" + name + ": unknown option");
            }
        }
    }

    private static double parseNumber(String name, String value) {
        try {
            double number = Double.parseDouble(value.trim());
            if (Double.isNaN(number)) {
                throw new NumberFormatException();
            }
            return number;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": " + value + " (expected: a number)");
        }
    }
}
