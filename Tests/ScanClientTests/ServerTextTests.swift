import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import Testing

/// A server's words reach the user cleaned: no control characters, no terminal escape sequences, no
/// bidirectional overrides, at most `ServerText.maxScalars` long.
@Suite("server text shown to the user")
struct ServerTextTests {
    /// Whether `text` holds nothing a terminal would act on.
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            let category = scalar.properties.generalCategory
            return category == .control || category == .format || category == .lineSeparator || category == .paragraphSeparator
        }
    }

    @Test(
        "escape sequences go whole, other controls become one space (runs of spaces too)",
        arguments: [
            ("bad \u{1B}[31mred\u{1B}[0m input", "bad red input"),
            ("title\u{1B}]0;pwned\u{07} set", "title set"),  // OSC ended by BEL
            ("title\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\ end", "titlelink end"),  // OSC ended by ST
            ("clear\u{1B}[2J\u{1B}[H screen", "clear screen"),
            ("c1 \u{9B}31m csi", "c1 csi"),
            ("charset\u{1B}(B switch", "charset switch"),
            ("line one\r\nline two\ttab\u{0}nul\u{7F}", "line one line two tab nul"),
            ("bidi \u{202E}evil\u{202C} \u{2066}x\u{2069}", "bidi evil x"),
            ("  padded \n", "padded"),
            ("plain text, unchanged: é ü 本", "plain text, unchanged: é ü 本"),
        ])
    func cleaned(_ raw: String, _ expected: String) {
        let shown = ServerText.sanitized(raw)
        #expect(shown == expected)
        #expect(Self.isInert(shown))
    }

    @Test("long text is cut to maxScalars, ending in an ellipsis; text of exactly maxScalars is kept whole")
    func capped() {
        let long = ServerText.sanitized(String(repeating: "x", count: 1_000_000))
        #expect(long.unicodeScalars.count == ServerText.maxScalars)
        #expect(long.hasSuffix("…"))
        let exact = String(repeating: "y", count: ServerText.maxScalars)
        #expect(ServerText.sanitized(exact) == exact)
        // A million combining marks are one Character, and still cut.
        let zalgo = ServerText.sanitized("e" + String(repeating: "\u{301}", count: 1_000_000))
        #expect(zalgo.unicodeScalars.count == ServerText.maxScalars)
    }

    /// A loopback server refusing every request with `status` and an error whose message is `message`.
    static func refusing(_ status: Int, message: String) throws -> LoopbackHTTPServer {
        let body = try WireCoding.encode(ErrorResponse(error: ErrorBody(code: .undecodableImage, message: message, retryable: false)))
        return try LoopbackHTTPServer { _ in .init(status: status, headers: [("Content-Type", "application/json")], body: Array(body)) }
    }

    static let hostileMessage = "no\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[31m way\n" + String(repeating: "A", count: 100_000)

    @Test("an error response's message is cleaned and capped in the typed error and its description")
    func errorResponse() async throws {
        let server = try Self.refusing(422, message: Self.hostileMessage)
        defer { server.stop() }
        let api = ScanAPI(baseURL: "http://127.0.0.1:\(server.port)", token: nil)
        let jpeg = try SyntheticShelf.jpeg()
        do throws(ScanAPIError) {
            _ = try await api.upload(jobId: UUID(), jpeg: jpeg, progress: nil, onRetry: nil)
            Issue.record("a 422 must throw")
        } catch {
            guard case .http(422, let body?) = error else {
                Issue.record("expected HTTP 422 with a body, got \(error)")
                return
            }
            #expect(body.message.hasPrefix("no way AAA"), "\(body.message.prefix(40))")
            #expect(body.message.unicodeScalars.count == ServerText.maxScalars)
            #expect(Self.isInert(body.message))
            #expect(Self.isInert(error.description) && error.description.count < ServerText.maxScalars + 20)
        }
    }
}
