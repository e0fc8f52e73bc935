import Foundation
import Synchronization

/// A throw-away PostgreSQL cluster for one test: `initdb` into a temporary directory, `pg_ctl start`
/// listening on a Unix socket in that directory only (no TCP), `fsync=off`; `stop()` shuts it down
/// and removes it. As root (CI), the cluster belongs to the `postgres` user (`initdb` refuses root)
/// and its commands run through `runuser`. About 1.5 s to start.
package final class PostgresCluster: Sendable {
    /// The cluster's directory; its socket lives here too.
    package let directory: String
    /// The port in the socket's name (`.s.PGSQL.PORT`); nothing listens on TCP.
    package let port: Int
    private let binaries: String
    private let runAs: String?
    /// What `postgres` is started with (`-o`).
    private let serverOptions: String
    /// Whether the cluster also listens on TCP at 127.0.0.1 (with TLS).
    package let listensOnTCP: Bool

    /// The superuser and database every cluster has.
    package static let user = "postgres"
    package static let database = "postgres"

    /// Where Debian's PostgreSQL programs are (`/usr/lib/postgresql/N/bin`, newest first); nil when
    /// PostgreSQL is not installed.
    package static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        return versions.map { "\(root)/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// Why a test that needs PostgreSQL cannot run here (nil: it can). Under `CI=true` the caller
    /// fails instead of skipping.
    package static var unavailableReason: String? {
        binaries == nil ? "PostgreSQL is not installed (apt-get install postgresql, or run scripts/bootstrap); skipping" : nil
    }

    /// Whether tests that need PostgreSQL run: it is installed, or `CI=true` (where a missing one
    /// must fail the run, not skip). Suites use it as `.enabled(if:)`, so a skip shows as one.
    package static var runnable: Bool { unavailableReason == nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// A cluster failed to start: what its command printed.
    package struct StartFailed: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// A server certificate and its key (PEM files) for a cluster that speaks TLS.
    package struct ServerTLS: Sendable {
        package let certificate: String
        package let key: String
        package init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// Creates and starts a cluster; with `tls`, it also listens on 127.0.0.1:`port` over TCP with
    /// `ssl=on` and that certificate (plain connections stay allowed: clients choose); with `tcp` alone, over
    /// TCP without TLS.
    package init(port: Int = 5432, tls: ServerTLS? = nil, tcp: Bool = false) throws {
        guard let binaries = Self.binaries else { throw StartFailed(description: Self.unavailableReason ?? "no PostgreSQL") }
        self.binaries = binaries
        self.port = port
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-pg-\(UUID().uuidString.prefix(8))").path
        directory = base
        runAs = getuid() == 0 ? "postgres" : nil
        listensOnTCP = tls != nil || tcp
        var options = "-c listen_addresses='\(listensOnTCP ? "127.0.0.1" : "")' -k \(base) -p \(port) -c fsync=off"
        if tls != nil { options += " -c ssl=on -c ssl_cert_file=\(base)/server.pem -c ssl_key_file=\(base)/server.key" }
        serverOptions = options
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        if let tls {
            try FileManager.default.copyItem(atPath: tls.certificate, toPath: base + "/server.pem")
            try FileManager.default.copyItem(atPath: tls.key, toPath: base + "/server.key")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: base + "/server.key")
        }
        if runAs != nil {
            try run("/bin/chown", ["-R", "postgres:postgres", base], asOwner: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: base)
        }
        try run(binaries + "/initdb", ["-D", base + "/data", "-A", "trust", "-U", Self.user, "--no-sync", "-E", "UTF8"])
        try run(binaries + "/pg_ctl", ["-D", base + "/data", "-w", "-l", base + "/server.log", "-o", options, "start"])
    }

    /// `postgres://postgres@localhost:PORT/DB?host=DIR`: the URL of one of the cluster's databases over its socket.
    package func url(database: String = PostgresCluster.database) -> String {
        "postgres://\(Self.user)@localhost:\(port)/\(database)?host=\(directory)"
    }

    /// The URL of the cluster's default database.
    package var url: String { url() }

    /// Creates an empty database of its own (cheap, unlike a cluster).
    package func freshDatabase() throws -> TestDatabase {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try psql("CREATE DATABASE \(name)")
        return TestDatabase(cluster: self, name: name)
    }

    /// One cluster for the whole test process, started on first use and stopped when the process
    /// exits; tests take a fresh database each (`freshDatabase()`), so they stay independent
    /// without paying for an `initdb` each. Throws when PostgreSQL is missing or does not start.
    package static func shared() throws -> PostgresCluster {
        try sharedCluster.withLock { cluster in
            if let cluster { return cluster }
            let started = try PostgresCluster()
            cluster = started
            atexit { PostgresCluster.stopShared() }
            return started
        }
    }

    /// A fresh database on the shared cluster for a test, or nil when PostgreSQL is not installed
    /// (the test is skipped with one line). Under `CI=true` a missing PostgreSQL throws: CI fails.
    package static func testDatabase() throws -> TestDatabase? {
        if let reason = unavailableReason {
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw StartFailed(description: "CI=true: " + reason) }
            print("bookscan tests: \(reason)")
            return nil
        }
        return try shared().freshDatabase()
    }

    private static let sharedCluster = Mutex<PostgresCluster?>(nil)

    private static func stopShared() {
        sharedCluster.withLock { cluster in
            cluster?.stop()
            cluster = nil
        }
    }

    /// Stops the cluster at once (`-m immediate`: nothing to keep) and removes its directory.
    package func stop() {
        _ = try? run(binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the server but keeps its data (`-m fast`), for tests that take the database away.
    package func pause() throws { try run(binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-m", "fast", "stop"]) }

    /// Starts a paused server again.
    package func resume() throws {
        try run(binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-l", directory + "/server.log", "-o", serverOptions, "start"])
    }

    /// Runs `psql -c SQL` against the cluster; its output.
    @discardableResult
    package func psql(_ sql: String, database: String = PostgresCluster.database) throws -> String {
        try run(binaries + "/psql", ["-h", directory, "-p", "\(port)", "-U", Self.user, "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// Runs a command to its end through `system(3)`; its standard output (what callers parse), with
    /// standard error kept apart (it goes into the error when the command fails). Not Foundation's
    /// `Process`: on Linux it learns that a child ended from a descriptor the child inherits, and the
    /// server `pg_ctl start` leaves running inherits it too, so `waitUntilExit` would never return.
    /// The command runs in a folder its user can enter (the cluster's own, or `/`), never the test
    /// process's: a checkout only root may enter (a clone under `/root`) would make the `postgres`
    /// user's programs print `could not change directory` into what is parsed.
    @discardableResult
    private func run(_ program: String, _ arguments: [String], asOwner: Bool = true) throws -> String {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-pg-out-\(UUID().uuidString)").path
        let errors = capture + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: capture)
            try? FileManager.default.removeItem(atPath: errors)
        }
        var words = [program] + arguments
        if asOwner, let runAs { words = ["/usr/sbin/runuser", "-u", runAs, "--"] + words }
        let folder = asOwner && FileManager.default.fileExists(atPath: directory) ? directory : "/"
        let command = "cd \(Self.quoted(folder)) && " + words.map(Self.quoted).joined(separator: " ")
            + " </dev/null >\(Self.quoted(capture)) 2>\(Self.quoted(errors))"
        let status = system(command)
        let text = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let diagnostics = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw StartFailed(description: "\((program as NSString).lastPathComponent) exited \(status): \((diagnostics + text).suffix(600))")
        }
        return text
    }

    /// `text` as one shell word.
    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

/// One database of a test cluster.
package struct TestDatabase: Sendable {
    package let cluster: PostgresCluster
    package let name: String

    /// Its URL over the cluster's socket.
    package var url: String { cluster.url(database: name) }

    /// Runs `psql -c SQL` in this database; its output (rows `|`-separated, one a line).
    @discardableResult
    package func psql(_ sql: String) throws -> String { try cluster.psql(sql, database: name) }
}
