import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// The bearer token guards every route but `/healthz` and `/openapi.yaml`, whatever the spelling
/// of the path: the decision follows what the router matched, never the raw path's prefix. (The public
/// routes and a route's missing methods are checked in process: `InProcessRouteTests`.)
@Suite("Authentication: every route, method and path spelling")
struct AuthenticationTests {
    static let token = "auth-test-token"
    static let methods = ["GET", "HEAD", "PUT", "DELETE", "POST", "PATCH", "OPTIONS"]

    /// Runs `body` with a service with the token whose one job keeps running through the test (a slow
    /// scan), the job's id and image; awaits the service's stop whether `body` returns or throws.
    @discardableResult
    static func with<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (ServiceHarness, UUID, [UInt8]) async throws -> T
    ) async throws -> T {
        let configuration = ServiceConfiguration(token: token, workers: 1, maxSubscribersPerJob: 1000, maxConnectionsPerClient: nil)
        return try await ServiceHarness.with(configuration.injecting(.init(scanStepDelay: .seconds(2))), isolation: isolation) { harness in
            let jpeg = try SyntheticShelf.jpeg()
            let id = UUID()
            #expect(try await harness.put(id, jpeg).status == 202)
            return try await body(harness, id, jpeg)
        }
    }

    /// Every protected route's path (no query) and the query it is sent with.
    static func protectedRoutes(_ id: UUID) -> [(path: String, query: String)] {
        [
            (Routes.scan(id), ""), (Routes.scan(id) + "/" + Routes.eventsSuffix, "?\(ProtocolNames.afterQuery)=0"),
            (Routes.multiplexedEvents, "?\(ProtocolNames.jobsQuery)=\(id.uuidString.lowercased())"), (Routes.limits, ""), (Routes.metrics, ""),
            (Routes.analytics, ""), (Routes.tickets, ""),
        ]
    }

    @Test("without a token every route × method × spelling is 401 or 404: never 2xx, a stream or a job")
    func everySpellingWithoutToken() async throws {
        try await Self.with { harness, id, jpeg in
            let raw = RawExchange(port: harness.service.port)
            var answered: [String] = []
            for route in Self.protectedRoutes(id) {
                for spelling in RawExchange.spellings(of: route.path) {
                    for method in Self.methods {
                        for accept in ["", "Accept: \(EventStreamWire.mediaType)"] {
                            // A fresh id for an upload, so an accepted one would create a job.
                            let fresh = spelling.replacingOccurrences(of: id.uuidString.lowercased(), with: UUID().uuidString.lowercased())
                            let target = (method == "PUT" ? fresh : spelling) + route.query
                            let (status, _) = try await raw.send(method, target, headers: accept.isEmpty ? [] : [accept], body: method == "PUT" ? jpeg : nil)
                            answered.append("\(method) \(target) \(accept): \(status.map(String.init) ?? "none")")
                            #expect(status == 401 || status == 404, "\(method) \(target) \(accept) → \(status.map(String.init) ?? "no answer")")
                        }
                    }
                }
            }
            #expect(answered.count == Self.protectedRoutes(id).count * RawExchange.spellings(of: "/a/b").count * Self.methods.count * 2)
            // Nothing was canceled or created behind the token's back.
            let snapshot = try #require(try await harness.snapshot(id))
            #expect(snapshot.state != .canceled)
            _ = try await harness.request("DELETE", Routes.scan(id))
        }
    }

    @Test("without a token no spelling of an events route upgrades to a WebSocket")
    func everyUpgradeSpellingWithoutToken() async throws {
        try await Self.with { harness, id, _ in
            let raw = RawExchange(port: harness.service.port)
            for route in Self.protectedRoutes(id) {
                for spelling in RawExchange.spellings(of: route.path) {
                    for token in ["", "&\(ProtocolNames.accessTokenQuery)=wrong"] {
                        let target = spelling + route.query + (route.query.isEmpty ? token.replacingOccurrences(of: "&", with: "?") : token)
                        let (status, _) = try await raw.send("GET", target, headers: RawExchange.upgradeHeaders)
                        #expect(status == 401 || status == 404, "upgrade \(target) → \(status.map(String.init) ?? "no answer")")
                    }
                }
            }
            _ = try await harness.request("DELETE", Routes.scan(id))
        }
    }

    @Test("with the token every spelling the router matches still works: JSON, streams and upgrades")
    func matchingSpellingsWithToken() async throws {
        try await Self.with { harness, id, _ in
            let raw = RawExchange(port: harness.service.port)
            let bearer = "Authorization: Bearer \(Self.token)"
            for path in [Routes.scan(id), Routes.limits, Routes.metrics] {
                for spelling in RawExchange.matchingSpellings(of: path) {
                    #expect(try await raw.send("GET", spelling, headers: [bearer]).status == 200, "GET \(spelling)")
                }
            }
            for route in Self.protectedRoutes(id) where route.path.hasSuffix(Routes.eventsSuffix) {
                for spelling in RawExchange.matchingSpellings(of: route.path) {
                    let sse = try await raw.send("GET", spelling + route.query, headers: [bearer, "Accept: \(EventStreamWire.mediaType)"])
                    #expect(sse.status == 200, "event stream \(spelling)")
                    let upgrade = try await raw.send("GET", spelling + route.query, headers: [bearer] + RawExchange.upgradeHeaders)
                    #expect(upgrade.status == 101, "upgrade \(spelling)")
                    let queryToken = spelling + route.query + "&\(ProtocolNames.accessTokenQuery)=\(Self.token)"
                    #expect(try await raw.send("GET", queryToken, headers: RawExchange.upgradeHeaders).status == 101, "upgrade \(queryToken)")
                }
            }
            // The upgrade is decided before the router: on every spelling it agrees with what the router
            // matches over plain HTTP (a stream there, an upgrade here; no route there, none here).
            for route in Self.protectedRoutes(id) where route.path.hasSuffix(Routes.eventsSuffix) {
                for spelling in RawExchange.spellings(of: route.path) {
                    let sse = try await raw.send("GET", spelling + route.query, headers: [bearer, "Accept: \(EventStreamWire.mediaType)"])
                    let upgrade = try await raw.send("GET", spelling + route.query, headers: [bearer] + RawExchange.upgradeHeaders)
                    #expect((sse.status == 200) == (upgrade.status == 101), "\(spelling): stream \(sse.status ?? 0), upgrade \(upgrade.status ?? 0)")
                    #expect(sse.status == 200 || sse.status == 404, "\(spelling): \(sse.status ?? 0)")
                }
            }
            // The query token is the events routes' only: elsewhere it is no token at all.
            #expect(try await raw.send("GET", Routes.limits + "?\(ProtocolNames.accessTokenQuery)=\(Self.token)").status == 401)
            _ = try await harness.request("DELETE", Routes.scan(id))
        }
    }

    @Test("Expect: 100-continue without a valid token gets 401 and no 100 Continue; with it, 100 then 202")
    func expectContinueWaitsForToken() async throws {
        try await Self.with { harness, id, jpeg in
            let port = harness.service.port
            for authorization in ["", "Authorization: Bearer wrong\r\n"] {
                let first = try await onThread {
                    let socket = try RawSocket(port: port)
                    defer { socket.close() }
                    socket.send(
                        "PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\n\(authorization)Content-Type: image/jpeg\r\n"
                            + "Content-Length: \(jpeg.count)\r\nExpect: 100-continue\r\n\r\n")
                    return socket.readResponseHead()?.head ?? ""
                }
                #expect(statusCode(first) == 401, "\(authorization.isEmpty ? "no token" : "wrong token"): \(first)")
            }
            let (interim, final) = try await onThread {
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                socket.send(
                    "PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.token)\r\nContent-Type: image/jpeg\r\n"
                        + "Content-Length: \(jpeg.count)\r\nExpect: 100-continue\r\n\r\n")
                let interim = socket.readResponseHead()?.head ?? ""
                socket.send(jpeg)
                return (interim, socket.readResponseHead()?.head ?? "")
            }
            #expect(statusCode(interim) == 100)
            #expect(statusCode(final) == 202)
            _ = try await harness.request("DELETE", Routes.scan(id))
        }
    }
}
