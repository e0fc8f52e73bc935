import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import Testing

/// `bookscan serve --log-format json`: every line the service writes, on standard error and
/// standard output, is one JSON object, its own start and stop lines and a refused flag included.
@Suite("serve --log-format json")
struct ServeJSONLogTests {
    /// Each non-empty line of `text` as a JSON object; records an issue for a line that is not one.
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("not a JSON line: \(line)")
                return nil
            }
            return object
        }
    }

    @Test("start, requests, a scan, SIGTERM: every stdout and stderr line is JSON with time, level and message; the listening line carries the port")
    func everyLineIsJSON() async throws {
        let child = try ChildProcess.bookscan(["serve", "--port", "0", "--log-format", "json", "--verbose", "--instant-scan"])
        var port: Int?
        _ = await ChildProcess.until(.seconds(60)) {
            port = child.stderr.split(separator: "\n").lazy.compactMap { line -> Int? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    (object["message"] as? String)?.hasPrefix("listening on ") == true
                else { return nil }
                return object["port"] as? Int
            }.first
            return port != nil || !child.process.isRunning
        }
        let listening = try #require(port, "\(child.stderr)")
        let http = CurlHTTPClient(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(30)))
        let base = "http://127.0.0.1:\(listening)"
        #expect(try await http.send(HTTPRequestData(method: "GET", url: base + Routes.health)).status == 200)
        let id = UUID()
        let put = try await http.send(
            HTTPRequestData(
                method: "PUT", url: base + Routes.scan(id), headers: [("Content-Type", ProtocolNames.jpegMediaType)], body: try SyntheticShelf.jpeg(seed: 3)))
        #expect(put.status == 202)
        _ = await ChildProcess.until(.seconds(30)) { child.stderr.contains("scan succeeded") }
        child.process.terminate()
        _ = await child.exit()
        let lines = Self.objects(child.stderr) + Self.objects(child.stdout)
        #expect(lines.count >= 3, "\(child.stderr)")
        #expect(lines.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
        let messages = lines.compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.hasPrefix("listening on http://127.0.0.1:") })
        #expect(messages.contains("stopped"), "\(messages)")
        #expect(messages.contains("scan succeeded"), "\(messages)")
    }

    @Test("a refused flag in json mode: exit 64 and one JSON error line")
    func refusedFlagIsJSON() async throws {
        let child = try ChildProcess.bookscan(["serve", "--port", "0", "--log-format", "json", "--workers", "0"])
        #expect(await child.exit() == 64)
        let lines = Self.objects(child.stderr)
        #expect(lines.count == 1 && lines.first?["level"] as? String == "error", "\(child.stderr)")
        #expect((lines.first?["message"] as? String)?.contains("--workers") == true)
    }
}
