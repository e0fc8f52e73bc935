/// Whether and how a connection to the job store's database is encrypted: libpq's `sslmode`.
public enum DatabaseTLSMode: String, Sendable, CaseIterable {
    /// Never TLS.
    case disable
    /// TLS when the server offers it, without checking its certificate; plain otherwise.
    case prefer
    /// TLS or no connection; the certificate is not checked (unless `sslrootcert` is given: then as `verify-ca`).
    case require
    /// TLS, the server's certificate chain checked against the trusted CAs (any host name).
    case verifyCA = "verify-ca"
    /// TLS, the chain checked and the certificate issued for the host connected to.
    case verifyFull = "verify-full"

    /// Whether a connection without TLS is refused.
    var requiresTLS: Bool { self != .disable && self != .prefer }
}
