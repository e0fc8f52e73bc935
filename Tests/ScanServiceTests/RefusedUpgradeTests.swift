import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// An `Upgrade: websocket` the events route will not take is answered as plain HTTP, with the
/// route's JSON status: on a method other than GET, and on any request after a connection's first.
@Suite("Refused upgrades answered over plain HTTP")
struct RefusedUpgradeTests {
    static let token = "refused-upgrade-token"

    @Test("HEAD and POST on an events route with Upgrade: websocket get what they get without it, never an empty 400", arguments: ["HEAD", "POST"])
    func nonGetUpgrade(method: String) async throws {
        try await ServiceHarness.with(ServiceConfiguration(token: Self.token)) { harness in
            let raw = RawExchange(port: harness.service.port)
            let bearer = "Authorization: Bearer \(Self.token)"
            // A job that exists: the upgrade would be admitted on GET.
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let path = Routes.events(id, after: 0)
            let plain = try await raw.send(method, path, headers: [bearer])
            let upgrade = try await raw.send(method, path, headers: [bearer] + RawExchange.upgradeHeaders)
            #expect(upgrade.status != 400 && upgrade.status != 101, "\(method) upgrade → \(upgrade.head)")
            #expect(upgrade.status == plain.status && plain.status != nil, "\(method): \(upgrade.status.map(String.init) ?? "none") vs \(plain.status.map(String.init) ?? "none")")
        }
    }

    @Test("a later request on a kept-alive connection with Upgrade: websocket and no token gets 401 JSON")
    func laterRequestUpgrade() async throws {
        try await ServiceHarness.with(ServiceConfiguration(token: Self.token)) { harness in
            let port = harness.service.port
            let path = Routes.events(UUID(), after: 0)
            let (first, second, body) = try await onThread { () -> (String, String, String) in
                let socket = try RawSocket(port: port, hangGuard: 20)
                defer { socket.close() }
                socket.send("GET \(Routes.limits) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.token)\r\n\r\n")
                guard let (head, rest) = socket.readResponseHead() else { return ("", "", "") }
                let length = Self.contentLength(head)
                var left = rest
                while left.count < length, let bytes = socket.receive().bytes { left += bytes }
                socket.send(
                    (["GET \(path) HTTP/1.1", "Host: 127.0.0.1"] + RawExchange.upgradeHeaders + ["", ""]).joined(separator: "\r\n"))
                guard let (second, secondRest) = socket.readResponseHead() else { return (head, "", "") }
                var body = secondRest
                while body.count < Self.contentLength(second), let bytes = socket.receive().bytes { body += bytes }
                return (head, second, String(decoding: body, as: UTF8.self))
            }
            #expect(statusCode(first) == 200)
            #expect(statusCode(second) == 401, "second answer: \(second)")
            if statusCode(second) == 401 {
                #expect(try WireCoding.decode(ErrorResponse.self, from: Data(body.utf8)).error.code == .unauthorized)
            }
        }
    }

    static func contentLength(_ head: String) -> Int {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
    }
}
