package dev.triage.proxy.config;

import dev.triage.model.SpeechTokenRates;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.Optional;

/**
 * How speech-to-text requests ({@code /v1/audio/transcriptions}, {@code /v1/audio/translations}) are
 * scheduled.
 *
 * @param backend their own backend, or empty to share the chat backend (its queue and slots too)
 * @param healthPath the path their own backend's readiness probe asks
 * @param maxBody the largest upload accepted, in bytes
 * @param voiceActivity whether PCM uploads are measured by their speech-active seconds
 * @param serviceTime the audio backend's seconds per transcript token
 * @param tokenRates κ, transcript tokens per second of speech, by language
 */
public record AudioConfig(Optional<BackendConfig> backend, String healthPath, long maxBody, boolean voiceActivity,
        ServiceTimeModel serviceTime, SpeechTokenRates tokenRates) {}
