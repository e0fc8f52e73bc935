import Foundation
import NIOSSL

/// The certificate chain and private key the service presents on HTTPS and WSS, loaded and checked up front.
public struct ServiceTLS: Sendable {
    /// The PEM file of the certificate chain (leaf first).
    public let certificatePath: String
    /// The PEM file of the private key.
    public let keyPath: String
    /// What the server's TLS handler is built from.
    let configuration: TLSConfiguration

    /// Loads both files and checks that the key belongs to the certificate, so a bad pair fails
    /// at start-up with a message naming the file instead of at the first handshake.
    public init(certificatePath: String, keyPath: String) throws(ServiceTLSError) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        for path in [certificatePath, keyPath] where !FileManager.default.isReadableFile(atPath: path) {
            throw ServiceTLSError(path: path, problem: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist")
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw ServiceTLSError(path: certificatePath, problem: "is not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw ServiceTLSError(path: certificatePath, problem: "holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw ServiceTLSError(path: keyPath, problem: "is not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ServiceTLSError(path: keyPath, problem: "does not match the certificate in \(certificatePath) (\(error))")
        }
        self.configuration = configuration
    }
}

/// Why the service's certificate or key could not be used; names the file.
public struct ServiceTLSError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let problem: String

    public var description: String { "\(path): \(problem)" }
}
