import Foundation
import ScanProtocol

/// One fuzz input decoded as every wire type of ScanProtocol. A decode may fail only with a
/// `DecodingError`; a value that decodes must re-encode, and its encoding must decode to a value
/// that encodes to the same bytes again (the round trip is stable after one pass). Then the client
/// consumes it (`WireConsumptionFuzz`: the tracker state machine and the progress display), which
/// must not trap whatever numbers it carries.
package enum WireDecodingFuzz {
    /// Every type that crosses the wire, from whole messages down to the enums inside them.
    static let checks: [(String, @Sendable (Data) -> FuzzOutcome)] = [
        ("ServerMessage", roundTrip(ServerMessage.self)),
        ("ClientMessage", roundTrip(ClientMessage.self)),
        ("ClientHello", roundTrip(ClientHello.self)),
        ("Heartbeat", roundTrip(Heartbeat.self)),
        ("JobEvent", roundTrip(JobEvent.self)),
        ("JobSnapshot", roundTrip(JobSnapshot.self)),
        ("JobLinks", roundTrip(JobLinks.self)),
        ("JobState", roundTrip(JobState.self)),
        ("ScanStage", roundTrip(ScanStage.self)),
        ("ScanResult", roundTrip(ScanResult.self)),
        ("Spine", roundTrip(Spine.self)),
        ("SpinePose", roundTrip(SpinePose.self)),
        ("ShelfRow", roundTrip(ShelfRow.self)),
        ("NormalizedBox", roundTrip(NormalizedBox.self)),
        ("RGBColor", roundTrip(RGBColor.self)),
        ("StageTiming", roundTrip(StageTiming.self)),
        ("ErrorResponse", roundTrip(ErrorResponse.self)),
        ("ErrorBody", roundTrip(ErrorBody.self)),
        ("ErrorCode", roundTrip(ErrorCode.self)),
        ("ServiceLimits", roundTrip(ServiceLimits.self)),
        ("HealthStatus", roundTrip(HealthStatus.self)),
    ]

    /// The names of the types each input is decoded as.
    package static var typeNames: [String] { checks.map(\.0) }

    /// Decodes `bytes` as every wire type; the first violation wins, else the types that accepted it.
    package static func run(_ bytes: [UInt8]) -> FuzzOutcome {
        let data = Data(bytes)
        var accepted: [String] = []
        for (name, check) in checks {
            switch check(data) {
            case .violation(let what): return .violation("\(name): \(what)")
            case .accepted: accepted.append(name)
            case .rejected: continue
            }
        }
        _ = WireConsumptionFuzz.run(data)
        return accepted.isEmpty ? .rejected("no wire type decodes it") : .accepted(accepted.joined(separator: ", "))
    }

    static func roundTrip<T: Codable & Equatable & SendableMetatype>(_ type: T.Type) -> @Sendable (Data) -> FuzzOutcome {
        { data in
            let value: T
            do {
                value = try WireCoding.decode(T.self, from: data)
            } catch let error as DecodingError {
                return .rejected("\(error)")
            } catch {
                return .violation("decoding threw a \(Swift.type(of: error)), not a DecodingError: \(error)")
            }
            let first: Data, again: T, second: Data
            do { first = try WireCoding.encode(value) } catch { return .violation("decoded, but cannot be re-encoded: \(error)") }
            do { again = try WireCoding.decode(T.self, from: first) } catch {
                return .violation("its own encoding \(String(decoding: first, as: UTF8.self)) does not decode: \(error)")
            }
            do { second = try WireCoding.encode(again) } catch { return .violation("the re-decoded value cannot be encoded: \(error)") }
            guard first == second else {
                return .violation("unstable encoding: \(String(decoding: first, as: UTF8.self)) then \(String(decoding: second, as: UTF8.self))")
            }
            guard (try? WireCoding.decode(T.self, from: second)) == again else { return .violation("the second decode differs") }
            return .accepted(String(decoding: first, as: UTF8.self))
        }
    }
}
