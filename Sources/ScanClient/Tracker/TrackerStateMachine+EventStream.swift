import Foundation
import RunModel
import ScanProtocol

extension TrackerStateMachine {
    // MARK: inputs from the event stream (SSE)

    /// The server answered the stream request with 200 and an event stream.
    package mutating func streamOpened(connection: Int) -> [Action] {
        guard !finished, case .connecting(connection) = stream.phase else { return [] }
        stream.phase = .open(connection, sawBytes: false)
        return [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
    }

    /// Bytes arrived on the stream: the events they completed and the heartbeats among them (none of
    /// either for the stream's opening, which only proves that no proxy buffers the response), the
    /// highest latest seq and the latest server time those heartbeats named, and when the bytes arrived (when known).
    package mutating func streamReceived(
        connection: Int, _ events: [JobEvent], heartbeats: Int = 0, heartbeatLatestSeq: Int? = nil, heartbeatTime: Date? = nil,
        receivedAt: Date? = nil
    ) -> [Action] {
        guard !finished, case .open(connection, let sawBytes) = stream.phase else { return [] }
        var actions: [Action] = [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
        if !sawBytes {
            stream.phase = .open(connection, sawBytes: true)
            actions.append(.cancel(.streamFirstByte(connection: connection)))
        }
        if !stream.delivering, !events.isEmpty || heartbeats > 0 {
            stream.delivering = true
            stream.consecutiveFailures = 0
            if polling, mode == .auto, !socketIsCarrying {
                // The stream delivers (again): it carries the job, polling stops.
                polling = false
                actions.append(.cancel(.poll))
            }
            if !socketIsCarrying { actions += watchLag(connection: connection) }
        }
        actions += lagHeard(connection: connection, events: events, heartbeat: heartbeatLatestSeq.map { ($0, heartbeatTime) }, receivedAt: receivedAt)
        for event in events where !finished { actions += accept(event, path: .sse) }
        return actions
    }

    /// The stream could not open, or ended; either way it no longer carries the job.
    package mutating func streamEnded(connection: Int, _ end: SocketEnd) -> [Action] {
        guard !finished, stream.connection == connection else { return [] }
        let wasOpen = if case .open = stream.phase { true } else { false }
        let actions: [Action] = [.cancel(.silence(connection: connection)), .cancel(.streamFirstByte(connection: connection))]
            + lagTimersCancelled(connection)
        switch end {
        case .refused(let status?) where EventStreamLeg.finalRefusals.contains(status):
            if mode == .sse, status == 401 || status == 403 { return actions + finish(.unauthorized(status: status)) }
            return actions + streamFailed(.refused, status: status, final: true)
        case .refused(let status): return actions + streamFailed(.refused, status: status, final: false)
        case .unreachable: return actions + streamFailed(.network, status: nil, final: false)
        case .closed: return actions + streamFailed(wasOpen ? .dropped : .network, status: nil, final: false)
        case .protocolError: return actions + streamFailed(.protocolError, status: nil, final: false)
        }
    }

    // MARK: transitions

    /// The WebSocket cannot carry the job now (`auto`): the event stream takes over, or polling when
    /// the stream has been given up or already failed.
    mutating func startFallback() -> [Action] {
        guard mode == .auto, uploadAccepted, !finished else { return [] }
        switch stream.phase {
        case .idle: return openStream()
        case .abandoned: return startPolling()
        case .connecting, .open, .waitingToReconnect: return []
        }
    }

    mutating func openStream() -> [Action] {
        let connection = nextConnection
        nextConnection += 1
        stream.phase = .connecting(connection)
        stream.delivering = false
        metrics.streamAttempts += 1
        return [
            .openStream(connection: connection, after: merge.contiguous),
            .schedule(.streamFirstByte(connection: connection), after: settings.firstFrameDeadline),
        ]
    }

    /// Closes the stream (the WebSocket carries again, or the run ends); it may be opened again later.
    mutating func closeStream(abandon: Bool = false) -> [Action] {
        var actions: [Action] = [.cancel(.streamReconnect)]
        if let connection = stream.connection {
            actions += [.closeSocket(connection: connection), .cancel(.silence(connection: connection)), .cancel(.streamFirstByte(connection: connection))]
            actions += lagTimersCancelled(connection)
        }
        if abandon || stream.phase != .abandoned { stream.phase = abandon ? .abandoned : .idle }
        return actions
    }

    /// One event-stream failure: count it, hand over to polling (`auto`), and reconnect with backoff
    /// unless the failure is final or there were too many.
    mutating func streamFailed(_ reason: SocketFailureReason, status: Int?, final: Bool) -> [Action] {
        metrics.streamFailures += 1
        if stream.firstFailure == nil {
            stream.firstFailure = TransportFailure(reason: reason, status: status, phase: streamedEvents > 0 ? .midScan : .beforeFirstEvent)
        }
        var actions: [Action] = []
        if final || metrics.streamFailures >= settings.maxSocketFailures {
            stream.phase = .abandoned
            if mode == .sse { return actions + finish(.socketUnavailable(reason)) }
        } else {
            stream.phase = .waitingToReconnect
            let attempt = stream.consecutiveFailures
            stream.consecutiveFailures += 1
            actions.append(.schedule(.streamReconnect, after: stream.backoff.delay(attempt: attempt)))
        }
        if mode == .auto { actions += startPolling() }
        return actions
    }

    /// The stream opened but no byte came in time: a proxy is buffering the response, and will do
    /// so again. The stream is given up for the run.
    mutating func streamBuffered(connection: Int) -> [Action] {
        switch stream.phase {
        case .connecting(connection), .open(connection, sawBytes: false): break
        default: return []
        }
        let actions: [Action] = [.closeSocket(connection: connection), .cancel(.silence(connection: connection))]
        return actions + streamFailed(.buffered, status: nil, final: true)
    }

    /// The stream has been silent for the silence timeout.
    mutating func streamSilent(connection: Int) -> [Action] {
        guard case .open(connection, _) = stream.phase else { return [] }
        return [.closeSocket(connection: connection), .cancel(.streamFirstByte(connection: connection))] + lagTimersCancelled(connection)
            + streamFailed(.silent, status: nil, final: false)
    }

    /// Events delivered so far from the streaming paths and polls (for a failure's phase).
    var streamedEvents: Int {
        metrics.eventsByPath[.websocket, default: 0] + metrics.eventsByPath[.sse, default: 0] + metrics.eventsByPath[.polling, default: 0]
    }
}
