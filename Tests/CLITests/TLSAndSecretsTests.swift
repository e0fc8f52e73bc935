import Foundation
import ScanClient
import ScanProtocol
import Testing

/// `bookscan serve --tls-cert --tls-key` with a throw-away CA, the client's `--cacert`, and the
/// bearer token that must never reach any output, log or file.
@Suite("TLS and secrets")
struct TLSAndSecretsTests {
    let cli = CLITests()
    let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path

    @Test("over https + wss: trusted with --cacert, refused with a clear message without it or with another CA")
    func tlsScan() async throws {
        let ca = try await ThrowawayCA.make()
        let serve = try await ServeProcess.start(["--tls-cert", ca.serverCertificate, "--tls-key", ca.serverKey])
        let url = "https://localhost:\(serve.port)"
        #expect(serve.stderr.contains("listening on https://"))

        // --strategy websocket exits 13 unless the WebSocket (wss) carried the job.
        let trusted = try await cli.bookscan(["scan", sample, "--server", url, "--cacert", ca.caCertificate, "--strategy", "websocket", "--json"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(trusted.stdout.utf8)) as? [String: Any]
        #expect(report?["outcome"] as? String == "succeeded")
        #expect(report?["strategy"] as? String == "websocket")

        // The event stream over TLS (chunked HTTP/1.1 inside it), with the same --cacert.
        let streamed = try await cli.bookscan(["scan", sample, "--server", url, "--cacert", ca.caCertificate, "--strategy", "sse", "--json"])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        let streamedReport = try JSONSerialization.jsonObject(with: Data(streamed.stdout.utf8)) as? [String: Any]
        #expect(streamedReport?["strategy"] as? String == "sse")
        #expect((streamedReport?["eventsByPath"] as? [String: Int])?["sse"] ?? 0 > 0)

        for extra in [[], ["--cacert", ca.otherCACertificate]] {
            let refused = try await cli.bookscan(["scan", sample, "--server", url] + extra)
            #expect(refused.status == 8, "\(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n").filter { $0.contains(sample) }
            #expect(lines.count == 1, "\(refused.stderr)")
            #expect(lines.first?.contains("TLS certificate is not trusted") == true, "\(refused.stderr)")
            #expect(lines.first?.contains("--cacert") == true, "\(refused.stderr)")
        }

        let plain = try await cli.bookscan(["scan", sample, "--server", "http://localhost:\(serve.port)"])
        #expect(plain.status == 8, "plain HTTP to a TLS port must fail, not hang: \(plain.stderr)")

        let missing = try await cli.bookscan(["scan", sample, "--server", url, "--cacert", "/nonexistent/ca.pem"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--cacert /nonexistent/ca.pem: does not exist"), "\(missing.stderr)")
        _ = await serve.stop()
    }

    @Test("serve refuses a key that is not the certificate's, or a missing file, naming the file")
    func badCertificatePair() async throws {
        let ca = try await ThrowawayCA.make()
        let cases: [([String], String, String)] = [
            (["--tls-cert", ca.serverCertificate, "--tls-key", ca.otherKey], ca.otherKey, "does not match"),
            (["--tls-cert", "/nonexistent/cert.pem", "--tls-key", ca.serverKey], "/nonexistent/cert.pem", "does not exist"),
            (["--tls-cert", ca.serverKey, "--tls-key", ca.serverKey], ca.serverKey, "not a PEM certificate"),
            (["--tls-cert", ca.serverCertificate], "--tls-key", "go together"),
        ]
        for (arguments, name, problem) in cases {
            do {
                let serve = try await ServeProcess.start(arguments)
                _ = await serve.stop()
                Issue.record("serve started with \(arguments)")
            } catch let failure as ServeFailure {
                let line = failure.output.split(separator: "\n").first { $0.contains(name) }
                #expect(line?.contains(problem) == true, "\(failure.output)")
            }
        }
    }

    @Test("the token never appears in any output, service log (JSON lines, one access line per request with its request id), /metrics, analytics record or result file")
    func tokenNeverLeaks() async throws {
        let token = "tok-\(UUID().uuidString)-secret"
        let wrongToken = "tok-\(UUID().uuidString)-wrong"
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-token-state-\(UUID().uuidString)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-token-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["shelf_one_row.jpg", "shelf_two_rows.jpg"] {
            try FileManager.default.copyItem(
                at: CLITests.samples.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let serve = try await ServeProcess.start(["--verbose", "--log-format", "json"], environment: ["BOOKSCAN_TOKEN": token])
        let server = "http://127.0.0.1:\(serve.port)"
        let base = ["XDG_STATE_HOME": state.path]
        let withToken = base.merging(["BOOKSCAN_TOKEN": token]) { $1 }

        var outputs: [(String, CLITests.Run)] = []
        func run(_ name: String, _ arguments: [String], _ environment: [String: String], expect status: Int32) async throws {
            let result = try await cli.bookscan(arguments, environment: environment)
            #expect(result.status == status, "\(name): \(result.stderr)")
            outputs.append((name, result))
        }
        try await run("scan via env", ["scan", sample, "--server", server, "--verbose", "--events", "--json"], withToken, expect: 0)
        try await run("scan via --token", ["scan", sample, "--server", server, "--token", token, "--verbose"], base, expect: 0)
        try await run("wrong token", ["scan", sample, "--server", server, "--token", wrongToken, "--verbose"], base, expect: 9)
        try await run("no token", ["scan", sample, "--server", server, "--verbose"], base, expect: 9)
        try await run("batch", ["batch", folder.path, "--server", server, "--json"], withToken, expect: 0)
        try await run("watch", ["watch", UUID().uuidString, "--server", server], withToken, expect: 12)
        try await run("stats", ["stats", "--json"], base, expect: 0)
        let scrape = try await CurlHTTPClient().send(
            HTTPRequestData(method: "GET", url: server + Routes.metrics, headers: [("Authorization", "Bearer \(token)"), ("X-Request-ID", "leak-test-1")]))
        #expect(scrape.status == 200 && scrape.header("X-Request-ID") == "leak-test-1")
        let serviceLog = await serve.stop()

        // JSON logs: every log line one object; one access line per request, with its request id.
        let jsonLines = serviceLog.split(separator: "\n").filter { $0.hasPrefix("{") }
        let objects = jsonLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(!objects.isEmpty && objects.count == jsonLines.count)
        let access = objects.filter { $0["message"] as? String == "request" }
        #expect(access.contains { $0["route"] as? String == "/v1/scans/{jobId}" && $0["status"] as? Int == 202 && $0["job_id"] is String })
        #expect(access.contains { $0["status"] as? Int == 401 })
        #expect(access.contains { $0["request_id"] as? String == "leak-test-1" && $0["route"] as? String == Routes.metrics })
        #expect(access.allSatisfy { $0["request_id"] is String && $0["instance"] is String && $0["duration_ms"] != nil && $0["time"] is String })

        var texts: [(String, String)] = [("serve stderr", serviceLog), ("/metrics", String(decoding: scrape.body, as: UTF8.self))]
        for (name, result) in outputs {
            texts.append(("\(name) stdout", result.stdout))
            texts.append(("\(name) stderr", result.stderr))
        }
        for root in [state, folder] {
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where !file.hasDirectoryPath && file.pathExtension != "jpg" {
                texts.append((file.path, (try? String(contentsOf: file, encoding: .utf8)) ?? ""))
            }
        }
        // The search must have something to search: the analytics log and the batch results exist.
        #expect(texts.contains { $0.0.hasSuffix("analytics.jsonl") && $0.1.contains("\"outcome\"") })
        #expect(texts.contains { $0.0.contains(".bookscan") && $0.0.hasSuffix(".json") })
        #expect(serviceLog.contains("listening on"))
        for (name, text) in texts {
            #expect(!text.contains(token), "the token leaked into \(name)")
            #expect(!text.contains(wrongToken), "the wrong token leaked into \(name)")
        }
    }
}
