package import Foundation
import ImagePreparation
import ScanClient
import ScanProtocol

/// What the client does with a wire value after decoding it, run on one fuzz input: a decoded event,
/// snapshot or socket message goes through the tracker state machine over every path (upload answer,
/// socket frame, poll) and each delivered event's fraction is clamped as the progress bar clamps it; decoded limits set the
/// silence timeout and the image preparer. Any number a server sends (a fraction of 1e308 or -5, a
/// seq of Int.max, a heartbeat of 1e300) must be consumed without trapping. The raw `fraction`
/// numbers of the input are drawn too, before decoding clamps them.
package enum WireConsumptionFuzz {
    /// Feeds `data` to every consumer that accepts it; the names of those that did.
    package static func run(_ data: Data) -> [String] {
        var consumed: [String] = []
        let decoder = WireCoding.decoder()
        if let snapshot = try? decoder.decode(JobSnapshot.self, from: data) {
            let delivered = track { machine in machine.uploadAccepted(snapshot) } + track { machine in machine.pollResult(.snapshot(snapshot)) }
            consumed.append("tracker(snapshot): \(delivered) drawn")
        }
        if let event = try? decoder.decode(JobEvent.self, from: data) {
            let delivered = track { machine in machine.socketMessage(connection: 1, .event(event)) }
            consumed.append("tracker(event): \(delivered) drawn")
        }
        if let message = try? decoder.decode(ServerMessage.self, from: data) {
            let delivered = track { machine in machine.socketMessage(connection: 1, message) }
            consumed.append("tracker(message): \(delivered) drawn")
        }
        if let limits = try? decoder.decode(ServiceLimits.self, from: data) {
            _ = TrackerSettings().adapted(toHeartbeat: limits.heartbeatSeconds)
            _ = ImagePreparer(longSide: limits.recommendedLongSide)
            consumed.append("settings(limits)")
        }
        for fraction in rawFractions(data) {
            draw(fraction)
            consumed.append("display(raw fraction)")
        }
        return consumed
    }

    /// A machine in auto mode with its socket open, given `input`; every delivered event is drawn.
    /// Returns how many events were delivered (and drawn).
    static func track(_ input: (inout TrackerStateMachine) -> [TrackerStateMachine.Action]) -> Int {
        var machine = TrackerStateMachine(mode: .auto)
        var actions = machine.start()
        for case .openSocket(let connection, _) in actions { actions += machine.socketOpened(connection: connection) }
        actions += input(&machine)
        var drawn = 0
        for case .deliver(_, _, let fraction) in actions {
            draw(fraction)
            drawn += 1
        }
        return drawn
    }

    /// Clamps a fraction as the live and line displays do before drawing it (the drawing itself is
    /// checked with the same hostile numbers in CLITests' `HostileNumbersTests`).
    static func draw(_ fraction: Double) {
        _ = ProgressFraction.clamped(fraction)
    }

    /// Every number under a `fraction` key anywhere in the JSON, as sent.
    static func rawFractions(_ data: Data) -> [Double] {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return [] }
        var found: [Double] = []
        func walk(_ value: Any) {
            if let dictionary = value as? [String: Any] {
                for (key, inner) in dictionary {
                    if key == "fraction", let number = inner as? NSNumber { found.append(number.doubleValue) }
                    walk(inner)
                }
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(object)
        return found
    }
}
