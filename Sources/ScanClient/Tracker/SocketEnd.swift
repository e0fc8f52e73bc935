import RunModel
/// How a socket attempt ended, as the driver reports it to the state machine.
package enum SocketEnd: Sendable, Equatable {
    /// Could not open: the upgrade got this HTTP status (nil when unknown).
    case refused(status: Int?)
    /// Could not connect at all.
    case unreachable
    /// Was open, then closed by the peer with this close code (nil: no close frame, e.g. a reset).
    case closed(code: Int?)
    /// Sent something that is not a protocol message.
    case protocolError
}

extension SocketEnd {
    /// The failure this end is for a transport that was open (`wasOpen`) or not yet.
    func failureReason(wasOpen: Bool) -> SocketFailureReason {
        switch self {
        case .refused: .refused
        case .unreachable: .network
        case .closed: wasOpen ? .dropped : .network
        case .protocolError: .protocolError
        }
    }
}
