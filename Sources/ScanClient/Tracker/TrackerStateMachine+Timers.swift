import RunModel
import ScanProtocol

extension TrackerStateMachine {
    /// A timer the driver scheduled fired (stale ones are filtered out by the driver).
    package mutating func timerFired(_ timer: TrackerTimer) -> [Action] {
        guard !finished else { return [] }
        switch timer {
        case .firstFrameDeadline:
            guard !everSawFrame, mode == .auto else { return [] }
            let reason: SocketFailureReason = if case .open = socket { .silent } else { .connectTimeout }
            if firstFailure == nil, case .connecting(let connection) = socket { failureAwaitsAnswer = connection }
            recordFailure(reason: reason, status: nil)
            return startFallback()
        case .socketGiveUp:
            guard !everSawFrame else { return [] }
            let reason: SocketFailureReason = if case .open = socket { .silent } else { .connectTimeout }
            switch socket {
            case .connecting, .open: metrics.socketFailures += 1  // a live attempt given up is a failed socket
            default: break
            }
            recordFailure(reason: reason, status: nil)
            var actions = closeCurrentSocket()
            socket = .abandoned
            actions.append(.cancel(.reconnect))
            if mode == .websocket { actions += finish(.socketUnavailable(reason)) } else { actions += startFallback() }
            return actions
        case .silence(let connection):
            if stream.connection == connection { return streamSilent(connection: connection) }
            guard case .open(connection, _) = socket else { return [] }
            var actions: [Action] = [.closeSocket(connection: connection), .cancel(.heartbeatLate(connection: connection)), .cancel(.hedgeVerdict(connection: connection))]
            actions += lagTimersCancelled(connection)
            if hedgeFor == connection { hedgeFor = nil }
            if suspect == connection { suspect = nil }
            actions += socketFailed(reason: .silent, status: nil)
            return actions
        case .heartbeatLate(let connection):
            // The server's heartbeat is late: ask the status once, at once, while the socket stays
            // open. News the socket did not deliver means it is dead (see `pollResult`).
            guard case .open(connection, sawFrame: true) = socket, mode == .auto, !polling, hedgeFor == nil, !pollInFlight, uploadAccepted
            else { return [] }
            hedgeFor = connection
            hedgeSawFrame = false
            pollInFlight = true
            metrics.pollsMade += 1
            metrics.hedgedPolls += 1
            return [.poll]
        case .hedgeVerdict(let connection):
            guard suspect == connection, case .open(connection, _) = socket else { return [] }
            suspect = nil
            var actions: [Action] = [.closeSocket(connection: connection), .cancel(.silence(connection: connection)), .cancel(.heartbeatLate(connection: connection))]
            actions += lagTimersCancelled(connection)
            actions += socketFailed(reason: .silent, status: nil)
            return actions
        case .connectDeadline(let connection):
            // A reconnect whose upgrade is never answered.
            guard case .connecting(connection) = socket else { return [] }
            var actions: [Action] = [.closeSocket(connection: connection)]
            actions += socketFailed(reason: .connectTimeout, status: nil)
            return actions
        case .reconnect:
            guard socket == .waitingToReconnect else { return [] }
            metrics.reconnects += 1
            return openSocket()
        case .streamFirstByte(let connection):
            return streamBuffered(connection: connection)
        case .streamReconnect:
            guard stream.phase == .waitingToReconnect else { return [] }
            return openStream()
        case .poll:
            guard polling else { return [] }
            return pollNowAndReschedule()
        case .lagProbe(let connection):
            return lagProbe(connection: connection)
        case .lagVerdict(let connection):
            return lagVerdict(connection: connection)
        }
    }
}
