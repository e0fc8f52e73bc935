/// The kinds of fault the campaign injects; each job gets exactly one, with drawn parameters.
package enum FaultKind: String, CaseIterable, Codable, Sendable, Comparable {
    /// No fault: the control group.
    case none
    /// The events route answers 503, 404 or 426 to the upgrade, to the client's probe of it and to
    /// the event stream: polling carries the job.
    case upgradeRefused = "upgrade_refused"
    /// Every upgrade is accepted, then the proxy passes no frame either way: the event stream carries the job.
    case silentUpgrade = "silent_upgrade"
    /// A proxy that answers every upgrade with 403 and passes everything else: the event stream carries the job.
    case blockedUpgrade = "blocked_upgrade"
    /// A proxy that blocks upgrades and buffers every response until it is complete: the event
    /// stream shows nothing until the job ends, so polling carries it.
    case bufferingProxy = "buffering_proxy"
    /// The first open socket is closed (FIN) after k events, without a close frame.
    case dropAfterEvents = "drop_after_events"
    /// The first open socket gets a TCP RST after k events.
    case tcpReset = "tcp_reset"
    /// The first open socket stops passing frames after k events but stays open.
    case swallowFrames = "swallow_frames"
    /// Status polls answered with 5xx (slowly) or delayed, under forced polling or a refused upgrade.
    case pollFaults = "poll_faults"
    /// The first upload is reset (RST) after a random number of body bytes.
    case uploadReset = "upload_reset"
    /// Latency and a bandwidth limit on every connection, both ways.
    case slowLink = "slow_link"
    /// The first open socket goes quiet after k events (open, no close); the reconnect delivers one
    /// event of its replay (older than what polling already showed) and goes quiet too.
    case partialReplay = "partial_replay"
    /// The first open socket is dropped after k events and every status poll is slow, so the
    /// reconnect (and its replay) lands while a poll is in flight.
    case reconnectDuringPoll = "reconnect_during_poll"
    /// The upload's answer is held: the job runs (and the socket may stream) before the PUT returns.
    case lateUploadAnswer = "late_upload_answer"
    /// The first open socket holds its frames after k events for about the late-heartbeat time,
    /// then delivers them in a burst: a timer is due just as frames arrive.
    case frameBurstAtTimer = "frame_burst_at_timer"
    /// A proxy that refuses every upgrade and trickles the event stream at a few hundred bytes a
    /// second: the stream stays alive but falls behind, so polling carries the job (the middlebox).
    case trickledStream = "trickled_stream"
    /// Every upgrade is accepted, then passes no frame; the event stream trickles: polling carries the job.
    case stalledThenTrickled = "stalled_then_trickled"
    /// Every WebSocket trickles at a few hundred bytes a second, the event stream passes: the stream
    /// carries the job once the socket is found behind.
    case trickledSocket = "trickled_socket"

    package static func < (lhs: FaultKind, rhs: FaultKind) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}
