import Foundation

/// The learned title decision's model: boosted decision stumps over `TitleCandidates.featureNames` (scikit-learn's
/// gradient boosting, depth 1), fitted by Tools/reading-lab (scripts/train-title-model) on the development real
/// photos and the generated set, with the threshold a candidate's probability must reach and the figures it was
/// chosen by (title-model.json).
package struct TitleModel: Sendable, Decodable {
    /// One stump: the log-odds it adds, `left` when the feature is at most `threshold` (compared in single
    /// precision, as scikit-learn compares), else `right`.
    package struct Stump: Sendable, Decodable {
        package var feature: Int
        package var threshold: Double
        package var left: Double
        package var right: Double

        package init(feature: Int, threshold: Double, left: Double, right: Double) {
            self.feature = feature
            self.threshold = threshold
            self.left = left
            self.right = right
        }

        /// Stored as [feature, threshold, left, right].
        package init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            self.init(
                feature: try c.decode(Int.self), threshold: try c.decode(Double.self), left: try c.decode(Double.self), right: try c.decode(Double.self))
        }
    }

    package var features: [String]
    /// The log-odds before any stump (the training set's share of titles).
    package var initial: Double
    package var stumps: [Stump]
    package var threshold: Double

    package init(features: [String] = TitleCandidates.featureNames, initial: Double, stumps: [Stump], threshold: Double) {
        self.features = features
        self.initial = initial
        self.stumps = stumps
        self.threshold = threshold
    }

    /// The committed model (Decision/title-model.json, compiled into the binary); nil when it does not fit this
    /// build's features.
    package static let committed: TitleModel? = {
        guard let model = try? JSONDecoder().decode(TitleModel.self, from: Data(PackageResources.title_model_json)), model.fits else { return nil }
        return model
    }()

    /// Whether the model was fitted over this build's features.
    package var fits: Bool {
        features == TitleCandidates.featureNames && stumps.allSatisfy { $0.feature >= 0 && $0.feature < features.count }
    }

    /// The probability that a candidate with `features` is its spine's title.
    package func probability(_ features: [Double]) -> Double {
        var z = initial
        for stump in stumps where stump.feature < features.count {
            z += Double(Float(features[stump.feature])) <= stump.threshold ? stump.left : stump.right
        }
        return 1 / (1 + exp(-z))
    }
}
