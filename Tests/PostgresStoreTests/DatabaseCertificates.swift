import Foundation

/// Certificates made with `openssl` for one test run: a CA, a server certificate it signs for
/// localhost and 127.0.0.1, and an unrelated CA that signed nothing here.
struct DatabaseCertificates {
    let directory: String
    var caCertificate: String { directory + "/ca.pem" }
    var otherCACertificate: String { directory + "/other-ca.pem" }
    var serverCertificate: String { directory + "/server.pem" }
    var serverKey: String { directory + "/server.key" }

    /// Generates everything into a fresh temporary directory.
    static func make() throws -> DatabaseCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-pgca-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        let curve = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        let steps = [
            "req -x509 \(curve) -keyout ca.key -out ca.pem -days 2 -subj /CN=bookscan-db-ca",
            "req -x509 \(curve) -keyout other-ca.key -out other-ca.pem -days 2 -subj /CN=unrelated-ca",
            "req \(curve) -keyout server.key -out server.csr -subj /CN=localhost",
            "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext",
        ]
        for step in steps {
            let status = system("cd '\(directory)' && openssl \(step) >/dev/null 2>&1")
            guard status == 0 else { throw OpenSSLStepFailed(step: step) }
        }
        return DatabaseCertificates(directory: directory)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// An `openssl` step failed.
struct OpenSSLStepFailed: Error {
    let step: String
}
