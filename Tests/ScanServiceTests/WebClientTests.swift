import BookscanTestSupport
import Foundation
import RunModel
import ScanAnalytics
import ScanClient
import ScanProtocol
import HTTPTypes
@testable import ScanService
import Testing

/// The web client on a real service: the page's policy names the connection's own address whatever Host
/// says; scripts/web-client-check, the page in a real headless Chromium; the page's JavaScript under node.
/// The routes' rules (types, caching, the analytics route) are in `InProcessWebRouteTests`.
@Suite("Web client: the page, its files, the analytics route and a real browser")
struct WebClientTests {
    static let token = "web-client-token"

    /// Runs `body` with a harness for this suite's configuration, awaiting its stop whether `body` returns or throws.
    @discardableResult
    static func with<T>(
        analyticsLog: String? = nil, token: String? = token, isolation: isolated (any Actor)? = #isolation,
        _ body: (ServiceHarness) async throws -> T
    ) async throws -> T {
        var configuration = ServiceConfiguration(token: token)
        configuration.analyticsLogPath = analyticsLog
        return try await ServiceHarness.with(configuration, isolation: isolation, body)
    }

    static func temporaryLog() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("web-analytics-\(UUID().uuidString).jsonl").path
    }

    /// A record as the page posts it (app.js `analyticsRecord`), stamped now (the service refuses a
    /// timestamp more than a day from its clock).
    static func webRecord(client: String = "web", command: String = "scan", totalSeconds: Double = 3.5) -> [UInt8] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return Array(
            """
            {"schemaVersion":2,"timestamp":"\(formatter.string(from: Date()))","jobId":"6f1c2b4a-0000-4000-8000-000000000001",\
            "command":"\(command)","client":"\(client)","outcome":"succeeded","strategy":"sse","fallbackFrom":"websocket",\
            "fallbackReason":"refused","fallbackPhase":"before_first_event","reconnects":0,"socketFailures":1,"streamFailures":0,\
            "polls":0,"eventsByPath":{"upload":1,"sse":4},"uploadSeconds":0.4,"firstEventSeconds":0.6,"totalSeconds":\(totalSeconds),\
            "bytesUp":120000,"uploadAttempts":1,"resubmissions":0,"spinesFound":8,"network":"web","server":"web","bookscanVersion":"0.1.0"}
            """.utf8)
    }

    static func post(_ harness: ServiceHarness, _ body: [UInt8], token: String?, type: String = "application/json") async throws -> HTTPResponseData {
        var headers = [("Content-Type", type)]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await harness.http.send(HTTPRequestData(method: "POST", url: harness.baseURL + "/v1/analytics", headers: headers, body: body))
    }

    @Test("a forged Host never writes the CSP: connect-src names the connection's own address (or the configured origins)")
    func forgedHost() async throws {
        try await Self.with { harness in
            let page = try await harness.http.send(
                HTTPRequestData(method: "GET", url: harness.baseURL + "/", headers: [("Host", "evil.example/;script-src")], body: nil))
            let policy = try #require(page.header("content-security-policy"))
            #expect(!policy.contains("evil") && policy.contains("connect-src 'self' blob: ws://127.0.0.1:\(harness.service.port) wss://127.0.0.1:\(harness.service.port);"))
            // The configured origins, when given, are the ones named; a forged one is dropped.
            let headers = WebClientRoutes.securityHeaders(authorities: ["shelf.local:8080", "evil.example/;script-src"])
            let configured = try #require(headers[.contentSecurityPolicy])
            #expect(configured.contains("connect-src 'self' blob: ws://shelf.local:8080 wss://shelf.local:8080;") && !configured.contains("evil"))
        }
    }

    /// scripts/web-client-check: the page in a real headless Chromium (Selenium with the system
    /// chromium-driver) against a real `bookscan serve`, behind the fault proxy for the fallbacks.
    /// Without chromium-driver the test is skipped (without selenium the script exits 2, and the test
    /// says so in one line); under CI=true either fails.
    @Test(
        "a real headless Chromium scans through the page over the WebSocket, the event stream and polling",
        .enabled(if: InstalledProgram.runnable("chromedriver"), "chromium-driver is not installed (scripts/bootstrap installs it)"))
    func browserCheck() async throws {
        let driver = try #require(InstalledProgram.path("chromedriver"), "CI=true: chromium-driver is not installed (scripts/bootstrap installs it)")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("bookscan")
        let script = repository.appendingPathComponent("scripts/web-client-check")
        let child = try ChildProcess(executable: script, [], environment: ["BOOKSCAN_BIN": binary.path, "CHROMEDRIVER": driver])
        let status = await child.exit()
        if status == 2 && ProcessInfo.processInfo.environment["CI"] != "true" {
            print("bookscan tests: \(child.stderr.split(separator: "\n").last ?? "the browser check lacks something"); skipping it")
            return
        }
        #expect(status == 0, "\(child.stdout)\(child.stderr)")
        #expect(child.stdout.contains("web-client-check: ok"), "\(child.stdout)")
    }

    /// scripts/web-client-js-test: the page's own tracker, merge and book list modules under node's test
    /// runner (the same out-of-order and duplicate sequences as the Swift merge's tests). Without node
    /// the test is skipped, except under CI=true, where it fails.
    @Test("the page's JavaScript unit tests pass under node", .enabled(if: InstalledProgram.runnable("node"), "node is not installed (scripts/bootstrap installs it)"))
    func javaScriptUnitTests() async throws {
        _ = try #require(InstalledProgram.path("node"), "CI=true: nodejs is not installed (scripts/bootstrap installs it)")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let child = try ChildProcess(executable: repository.appendingPathComponent("scripts/web-client-js-test"), [])
        let status = await child.exit()
        #expect(status == 0, "\(child.stdout)\(child.stderr)")
        #expect(child.stdout.contains("# fail 0"), "\(child.stdout)")
        #expect(!child.stdout.contains("# pass 0"), "\(child.stdout)")
    }
}
