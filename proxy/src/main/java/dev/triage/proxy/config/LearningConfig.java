package dev.triage.proxy.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether Triage learns from its backends' answers, where it keeps what it learned, and where it
 * writes completed requests for retraining.
 *
 * @param online false freezes every learned model at the configured one
 * @param stateDirectory where the learned state is saved and loaded from; empty to keep it in memory
 * @param feedbackLog where completed chat requests are written for retraining; empty for nowhere
 * @param feedbackPrompts true to write each prompt's text to the feedback log too
 */
public record LearningConfig(boolean online, Optional<Path> stateDirectory, Optional<Path> feedbackLog, boolean feedbackPrompts) {}
