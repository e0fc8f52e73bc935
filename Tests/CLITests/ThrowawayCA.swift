import Foundation

/// A certificate authority made for one test run with the `openssl` command: a CA, a server
/// certificate it signs for localhost and 127.0.0.1, and a second, unrelated CA.
struct ThrowawayCA {
    let directory: URL
    var caCertificate: String { directory.appendingPathComponent("ca.pem").path }
    var serverCertificate: String { directory.appendingPathComponent("server.pem").path }
    var serverKey: String { directory.appendingPathComponent("server.key").path }
    /// A key that does not belong to `serverCertificate`.
    var otherKey: String { directory.appendingPathComponent("other.key").path }
    /// A CA that signed nothing here: trusting it must not make the server trusted.
    var otherCACertificate: String { directory.appendingPathComponent("other-ca.pem").path }

    /// Generates everything into a fresh temporary directory (runs openssl on a thread of its own).
    static func make() async throws -> ThrowawayCA {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-ca-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ca = ThrowawayCA(directory: directory)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + curve + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=bookscan throwaway CA"],
            ["req", "-x509"] + curve + ["-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "2", "-subj", "/CN=unrelated CA"],
            ["req"] + curve + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                "-days", "2", "-extfile", "server.ext",
            ],
            ["genpkey", "-algorithm", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", "other.key"],
        ]
        for step in steps { try await run(step, in: directory) }
        return ca
    }

    private static func run(_ arguments: [String], in directory: URL) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                continuation.resume(
                    with: Result {
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                        process.arguments = ["openssl"] + arguments
                        process.currentDirectoryURL = directory
                        process.standardOutput = FileHandle.nullDevice
                        process.standardError = FileHandle.nullDevice
                        try process.run()
                        process.waitUntilExit()
                        guard process.terminationStatus == 0 else { throw OpenSSLFailure(arguments: arguments) }
                    })
            }.start()
        }
    }
}

/// An openssl step failed.
struct OpenSSLFailure: Error {
    let arguments: [String]
}
