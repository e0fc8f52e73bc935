import Foundation
package import ScanProtocol

/// The title decision stage: each spine's title is its likeliest candidate (`TitleCandidates`: the rules' title
/// and the photo's lines on it) by the learned `TitleModel`, when that reaches the model's threshold, else none;
/// a title chosen for two spines of one photo stays with the likelier. Each spine records why (`TitleTrace`).
package struct TitleChoice: Sendable {
    let model: TitleModel
    /// The word lists; nil: the installed ones (`ReadingKnowledge.installed`), read at the first decision
    /// unless `preload` read them before.
    let knowledge: ReadingKnowledge?

    package init(model: TitleModel, knowledge: ReadingKnowledge? = nil) {
        self.model = model
        self.knowledge = knowledge
    }

    /// The committed model over the installed word lists; nil when the model does not fit this build.
    package static var standard: TitleChoice? {
        TitleModel.committed.map { TitleChoice(model: $0) }
    }

    /// Reads the installed word lists and given names on a thread of their own (about half a second), so that a
    /// scan that starts meanwhile finds them read by the time it decides titles.
    package static func preload(wordLists: Bool = true) {
        Thread.detachNewThread {
            _ = PersonNames.installed
            if wordLists { _ = ReadingKnowledge.installed }
        }
    }

    /// `spines` (of a photo `width` × `height` whose text lines are `lines`) with their titles decided.
    package func chosen(_ spines: [Spine], lines: [RecordedLine], width: Int, height: Int) -> [Spine] {
        let candidates = TitleCandidates(knowledge: knowledge ?? .installed)
        var out = spines
        var taken: [String: (index: Int, probability: Double)] = [:]
        for (i, spine) in spines.enumerated() {
            let q = spine.polygon
            let found = candidates.candidates(
                polygon: [q.topLeft, q.topRight, q.bottomRight, q.bottomLeft], lying: spine.pose == .lying, rules: spine.title,
                rulesConfidence: spine.textConfidence, read: spine.text, lines: lines, width: width, height: height)
            let rules = spine.title
            out[i].title = nil
            var best: (candidate: TitleCandidate, probability: Double)?
            for candidate in found {
                let p = model.probability(candidate.features)
                if p > (best?.probability ?? -1) { best = (candidate, p) }
            }
            guard let best else {
                out[i].titleTrace = TitleTrace(stage: .learnedChoice, source: nil, probability: nil, rulesTitle: rules, candidates: 0)
                continue
            }
            let trace = TitleTrace(
                stage: .learnedChoice, source: best.candidate.source == .line ? .photoLine : .rules, probability: best.probability,
                rulesTitle: rules, candidates: found.count)
            out[i].titleTrace = trace
            guard best.probability >= model.threshold else {
                out[i].titleTrace?.source = nil
                continue
            }
            let key = TitleCandidates.simple(best.candidate.text)
            if let other = taken[key] {
                if other.probability >= best.probability {
                    out[i].titleTrace?.source = nil
                    continue
                }
                out[other.index].title = nil
                out[other.index].titleTrace?.source = nil
            }
            taken[key] = (i, best.probability)
            out[i].title = best.candidate.text
        }
        return out
    }
}
