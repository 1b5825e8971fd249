package dev.triage.proxy.testing;

import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.ranker.RankerEstimator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The shipped ranker laid out in a directory as a user's {@code --model} must find it: the head, its metadata beside it,
 * and the tuned encoder the metadata names.
 */
public final class ShippedRankerFiles {
    private static final String ENCODER_RESOURCE = "/models/ranker-encoder.onnx";

    private ShippedRankerFiles() {}

    /** Copies the shipped head, its metadata and its encoder into {@code dir}; returns the head's path. */
    public static Path copyInto(Path dir) throws IOException {
        Path head = dir.resolve("ranker.onnx");
        writeHead(head);
        copy(ModelFiles.metadataResource(RankerEstimator.DEFAULT_MODEL_RESOURCE), ModelFiles.metadataPath(head));
        copy(ENCODER_RESOURCE, dir.resolve("ranker-encoder.onnx"));
        return head;
    }

    /** Writes the shipped head over {@code head}, as a user replacing a broken model file would. */
    public static void writeHead(Path head) throws IOException {
        copy(RankerEstimator.DEFAULT_MODEL_RESOURCE, head);
    }

    private static void copy(String resource, Path to) throws IOException {
        try (InputStream in = RankerEstimator.class.getResourceAsStream(resource)) {
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
