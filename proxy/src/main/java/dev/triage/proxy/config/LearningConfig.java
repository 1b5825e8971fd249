package dev.triage.proxy.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether Triage learns from its backends' answers, and where it keeps what it learned.
 *
 * @param online false freezes every learned model at the configured one
 * @param stateDirectory where the learned state is saved and loaded from; empty to keep it in memory
 */
public record LearningConfig(boolean online, Optional<Path> stateDirectory) {}
