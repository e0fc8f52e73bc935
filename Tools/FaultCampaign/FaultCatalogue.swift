import ScanClient

/// Draws a campaign from a seed: fault kinds in shuffled rounds (so every kind appears once per
/// round of `kinds.count` jobs), each with random parameters and a random image.
package struct FaultCatalogue: Sendable {
    /// Statuses a refused upgrade gets.
    package static let refusedStatuses = [503, 404, 426]
    /// Statuses a failing poll gets.
    package static let pollErrorStatuses = [500, 502, 503, 504]
    /// Bytes per second a trickled event stream passes (the middlebox: a few hundred).
    package static let streamTrickleRates = 200...400
    /// Bytes per second a trickled WebSocket passes: fast enough that its first frame (after the 101
    /// head) comes well inside the first-frame deadline and a frame rarely takes a second, yet slower than
    /// the campaign's events and 200 ms heartbeats (with 2 s heartbeats it keeps up until the result frame).
    package static let socketTrickleRates = 400...600

    /// Image paths and the size of each prepared upload (to place an upload cut inside the body).
    package var images: [(path: String, uploadBytes: Int)]
    /// Most events a socket fault lets through first (kept well inside a job).
    package var maxEventsBeforeFault: Int
    /// The kinds drawn (all by default).
    package var kinds: [FaultKind]

    package init(images: [(path: String, uploadBytes: Int)], maxEventsBeforeFault: Int = 5, kinds: [FaultKind] = FaultKind.allCases) {
        self.images = images
        self.maxEventsBeforeFault = max(1, maxEventsBeforeFault)
        self.kinds = kinds.isEmpty ? FaultKind.allCases : kinds
    }

    /// The same seed and images always give the same jobs.
    package func draw(jobs count: Int, seed: UInt64) -> [CampaignJob] {
        guard !images.isEmpty else { return [] }
        var random = SplitMix64(seed: seed)
        var round: [FaultKind] = []
        return (0..<max(0, count)).map { index in
            if round.isEmpty { round = kinds.shuffled(using: &random) }
            let kind = round.removeFirst()
            let image = images[Int.random(in: 0..<images.count, using: &random)]
            let fault = parameters(for: kind, uploadBytes: image.uploadBytes, random: &random)
            return CampaignJob(number: index + 1, image: image.path, fault: fault)
        }
    }

    private func parameters(for kind: FaultKind, uploadBytes: Int, random: inout SplitMix64) -> InjectedFault {
        var fault = InjectedFault(kind: kind)
        switch kind {
        case .none, .silentUpgrade, .blockedUpgrade, .bufferingProxy:
            break
        case .upgradeRefused:
            fault.status = Self.refusedStatuses.randomElement(using: &random)
        case .dropAfterEvents, .tcpReset, .swallowFrames, .partialReplay:
            fault.events = Int.random(in: 1...maxEventsBeforeFault, using: &random)
        case .reconnectDuringPoll:
            fault.events = Int.random(in: 1...maxEventsBeforeFault, using: &random)
            fault.milliseconds = Int.random(in: 200...900, using: &random)
        case .lateUploadAnswer:
            fault.milliseconds = Int.random(in: 500...2500, using: &random)
        case .frameBurstAtTimer:
            // Around the campaign's late-heartbeat time (heartbeat 200 ms + 500 ms margin) and up to
            // its 2 s silence timeout.
            fault.events = Int.random(in: 1...maxEventsBeforeFault, using: &random)
            fault.milliseconds = Int.random(in: 400...2100, using: &random)
        case .pollFaults:
            fault.every = Int.random(in: 2...4, using: &random)
            fault.status = Self.pollErrorStatuses.randomElement(using: &random)
            fault.milliseconds = Int.random(in: 50...400, using: &random)
            fault.viaFallback = Bool.random(using: &random)
        case .uploadReset:
            // The request head is a few hundred bytes; cut somewhere inside the body.
            fault.cutAtByte = Int.random(in: 400...max(401, 300 + uploadBytes * 9 / 10), using: &random)
        case .slowLink:
            fault.milliseconds = Int.random(in: 10...80, using: &random)
            fault.bytesPerSecond = Int.random(in: 128...2048, using: &random) * 1024
        case .trickledStream, .stalledThenTrickled:
            fault.bytesPerSecond = Int.random(in: Self.streamTrickleRates, using: &random)
        case .trickledSocket:
            fault.bytesPerSecond = Int.random(in: Self.socketTrickleRates, using: &random)
        }
        return fault
    }
}
