import BookscanTestSupport
import Foundation
import Testing

/// The OpenAPI document against the live service, checked by independent tools: schemathesis (every
/// route, status, header and body it can generate, with a token so the auth rules are checked too) and
/// scripts/check-streams.py (real SSE messages and WebSocket frames validated against the same schemas).
/// Without schemathesis the test is skipped with one line; under CI=true that fails (scripts/bootstrap installs it).
@Suite("openapi.yaml against a live bookscan serve")
struct OpenAPIContractTests {
    static let repository = CLITests.samples.deletingLastPathComponent()

    @Test("schemathesis and the stream checker find nothing the service does that the document does not say")
    func contract() async throws {
        let probe = try ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import schemathesis, websockets, yaml"])
        guard await probe.exit() == 0 else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("CI=true: schemathesis is not installed (scripts/bootstrap installs it)")
            } else {
                print("bookscan tests: schemathesis is not installed (pip install schemathesis==4.32.5 websockets); skipping the OpenAPI contract test")
            }
            return
        }
        try await HeavyTests.gate.run {
            let script = Self.repository.appendingPathComponent("scripts/contract-test")
            let child = try ChildProcess(executable: script, [CLITests.binary.path], environment: [:])
            let status = await child.exit()
            #expect(status == 0, "\(child.stdout.suffix(6000))\(child.stderr.suffix(3000))")
            #expect(child.stdout.contains("stream checks: OK"), "\(child.stdout.suffix(3000))")
        }
    }
}
