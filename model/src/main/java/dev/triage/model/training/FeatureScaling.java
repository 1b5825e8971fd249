package dev.triage.model.training;

/**
 * Standardizes the ranker head's {@link dev.triage.features.RequestFeatures} to mean 0 and standard
 * deviation 1 over the training prompts, so that a log length and a one-hot flag start on the same
 * footing beside the embedding. Training applies it in Java and the exported graph applies the same
 * float operations ({@code (x − mean) / scale}), so both compute the same inputs.
 *
 * @param means each feature's mean over the training prompts
 * @param scales each feature's standard deviation, or 1 where it is constant
 */
record FeatureScaling(float[] means, float[] scales) {

    static FeatureScaling fit(float[][] rows) {
        int columns = rows[0].length;
        double[] sums = new double[columns];
        for (float[] row : rows) {
            for (int f = 0; f < columns; f++) {
                sums[f] += row[f];
            }
        }
        float[] means = new float[columns];
        float[] scales = new float[columns];
        for (int f = 0; f < columns; f++) {
            double mean = sums[f] / rows.length;
            double squares = 0;
            for (float[] row : rows) {
                squares += (row[f] - mean) * (row[f] - mean);
            }
            double deviation = Math.sqrt(squares / rows.length);
            means[f] = (float) mean;
            scales[f] = deviation > 1e-6 ? (float) deviation : 1f;
        }
        return new FeatureScaling(means, scales);
    }

    /** The head's input: the embedding, then the standardized features. */
    float[] input(float[] embedding, float[] features) {
        float[] input = new float[embedding.length + features.length];
        System.arraycopy(embedding, 0, input, 0, embedding.length);
        for (int f = 0; f < features.length; f++) {
            input[embedding.length + f] = (features[f] - means[f]) / scales[f];
        }
        return input;
    }

    /** The head's input of each prompt. */
    float[][] inputs(float[][] embeddings, float[][] features) {
        float[][] inputs = new float[embeddings.length][];
        for (int i = 0; i < inputs.length; i++) {
            inputs[i] = input(embeddings[i], features[i]);
        }
        return inputs;
    }
}
