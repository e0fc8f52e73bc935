/// The campaign's figures for one fault kind.
public struct FaultSummary: Sendable, Codable {
    public var kind: FaultKind
    public var jobs: Int
    public var passed: Int
    public var failed: Int { jobs - passed }
    /// Failure reasons and how often each occurred.
    public var reasons: [String: Int]
    /// Classifications the records showed and how often.
    public var classifications: [String: Int]

    /// Groups outcomes by fault kind, in catalogue order (kinds without jobs are left out).
    public static func summarize(_ outcomes: [JobOutcome]) -> [FaultSummary] {
        FaultKind.allCases.compactMap { kind in
            let jobs = outcomes.filter { $0.job.fault.kind == kind }
            guard !jobs.isEmpty else { return nil }
            var reasons: [String: Int] = [:]
            var classifications: [String: Int] = [:]
            for job in jobs {
                for failure in job.failures { reasons[failure, default: 0] += 1 }
                classifications[job.classification ?? "no record", default: 0] += 1
            }
            return FaultSummary(kind: kind, jobs: jobs.count, passed: jobs.count { $0.passed }, reasons: reasons, classifications: classifications)
        }
    }
}
