/// The campaign's figures for one fault kind.
package struct FaultSummary: Sendable, Codable {
    package var kind: FaultKind
    package var jobs: Int
    package var passed: Int
    package var failed: Int { jobs - passed }
    /// Failure reasons and how often each occurred.
    package var reasons: [String: Int]
    /// Classifications the records showed and how often.
    package var classifications: [String: Int]
    /// Seconds from the service writing each job's terminal event to the display showing it, ascending.
    package var terminalDelays: [Double] = []

    /// The median terminal delay (nil without one).
    package var medianTerminalDelay: Double? { terminalDelays.isEmpty ? nil : terminalDelays[terminalDelays.count / 2] }
    /// The longest terminal delay (nil without one).
    package var maximumTerminalDelay: Double? { terminalDelays.last }

    /// Groups outcomes by fault kind, in catalogue order (kinds without jobs are left out).
    package static func summarize(_ outcomes: [JobOutcome]) -> [FaultSummary] {
        FaultKind.allCases.compactMap { kind in
            let jobs = outcomes.filter { $0.job.fault.kind == kind }
            guard !jobs.isEmpty else { return nil }
            var reasons: [String: Int] = [:]
            var classifications: [String: Int] = [:]
            for job in jobs {
                for failure in job.failures { reasons[failure, default: 0] += 1 }
                classifications[job.classification ?? "no record", default: 0] += 1
            }
            return FaultSummary(
                kind: kind, jobs: jobs.count, passed: jobs.count { $0.passed }, reasons: reasons, classifications: classifications,
                terminalDelays: jobs.compactMap(\.terminalDelaySeconds).sorted())
        }
    }
}
