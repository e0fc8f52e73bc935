import ArgumentParser
import Foundation
import Logging
import ScanEngine
import ScanService
import SpineReading
import UnixSignals

/// `bookscan serve`: runs the scan service standalone until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    /// The port `serve` listens on unless told otherwise (the embedded service picks a free one).
    static let defaultPort = 8080

    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the scan service (HTTP + WebSocket, protocol v1) until Ctrl-C or SIGTERM.",
        discussion: """
            Without a token the service listens on loopback only, unless --allow-unauthenticated is given.
            Set the token with BOOKSCAN_TOKEN (preferred: it stays out of the process list) or --token.
            """
    )

    @Option(help: "Address to listen on.") var host = ServiceConfiguration.defaultHost
    @Option(help: "Port to listen on (0 picks a free one).") var port = Self.defaultPort
    @Option(help: "Bearer token required on every /v1 route (default: $BOOKSCAN_TOKEN).") var token: String?
    @Option(help: "Scans running at once (default: one per core).") var workers = ServiceConfiguration.defaultWorkers
    @Option(help: "Jobs that may wait for a worker before uploads get 503.") var queue = ServiceConfiguration.defaultQueueCapacity
    @Option(name: .customLong("max-bytes"), help: "Largest upload in bytes.") var maxBytes = ServiceConfiguration.defaultMaxBytes
    @Option(name: .customLong("max-pixels"), help: "Largest image in pixels.") var maxPixels = ServiceConfiguration.defaultMaxPixels
    @Option(name: .customLong("job-ttl"), help: "How long a finished job stays readable (e.g. 3600, 90m, 1h).")
    var jobTTL = CommandDuration(ServiceConfiguration.defaultJobTTL)
    @Option(help: "Time between heartbeats on event sockets (e.g. 2s, 500ms).")
    var heartbeat = CommandDuration(ServiceConfiguration.defaultHeartbeatInterval)
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve HTTPS + WSS (needs --tls-key).") var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.") var tlsKey: String?
    @Option(name: .customLong("upload-memory"), help: "Bytes all uploads in progress may buffer at once; more get 503.")
    var uploadMemory = ServiceConfiguration.defaultUploadMemory
    @Option(name: .customLong("max-connections-per-client"), help: "Open connections one client address may hold (0: no cap).")
    var maxConnectionsPerClient = ServiceConfiguration.defaultMaxConnectionsPerClient
    @Option(name: .customLong("max-connections"), help: "Open connections the whole service may hold (0: no cap).")
    var maxConnections = ServiceConfiguration.defaultMaxConnections
    @Option(
        name: .customLong("min-body-rate"),
        help: "Bytes/s a request body must average once --body-rate-grace has passed, else 408 (0: no floor).")
    var minBodyRate = BodyRateFloor.standard.bytesPerSecond
    @Option(name: .customLong("body-rate-grace"), help: "How long a request body may arrive at any pace before --min-body-rate applies.")
    var bodyRateGrace = CommandDuration(BodyRateFloor.standard.grace)
    @Option(
        name: .customLong("analytics-log"),
        help: "Append the web client's run records (POST /v1/analytics) to this JSONL log, as `bookscan stats` reads it.")
    var analyticsLog: String?
    @Option(name: .customLong("header-timeout"), help: "How long a new connection has to send its first request head.")
    var headerTimeout = CommandDuration(ServiceConfiguration.defaultHeaderTimeout)
    @Option(name: .customLong("idle-timeout"), help: "How long before an idle kept-alive connection or a stalled body is closed.")
    var idleTimeout = CommandDuration(ServiceConfiguration.defaultIdleTimeout)
    @Flag(name: .customLong("allow-unauthenticated"), help: "Listen on a non-loopback address without a token.")
    var allowUnauthenticated = false
    @Flag(help: "Log every scan (info level).") var verbose = false
    @Option(name: .customLong("log-format"), help: "Log lines as text, or as one JSON object a line (json).") var logFormat = LogFormat.text
    @Option(name: .customLong("ocr-data"), help: "Directory of Tesseract language data (default: the library's own).")
    var ocrData: String?
    @Option(name: .customLong("ocr-language"), help: "Language titles are read in (Tesseract code).") var ocrLanguage = OCRSettings.defaultLanguage
    @Option(help: "The recognizer that reads titles: tesseract, ppocr, or combined (Tesseract, then PP-OCR where it read no title) (default: $BOOKSCAN_RECOGNIZER, else combined; tesseract when the PP-OCR models are not installed).")
    var recognizer: RecognizerKind?
    @Option(
        help: ArgumentHelp(
            "Share jobs with every instance on this PostgreSQL database (postgres://USER@HOST:PORT/DB; default: $BOOKSCAN_DATABASE_URL).",
            discussion: "The password comes from the URL, $PGPASSWORD or --database-password-file; it is never logged."))
    var database: String?
    @Option(name: .customLong("database-password-file"), help: "A file holding the database password.") var databasePasswordFile: String?
    @Flag(name: .customLong("migrate-only"), help: "Apply the database migrations, then exit.") var migrateOnly = false
    @Option(help: "This instance's name in leases and /healthz (default: host-pid-RANDOM, new at every start).") var instance: String?
    @Option(name: .customLong("max-attempts"), help: "Runs of one job before it fails, when the instances running it keep dying.")
    var maxAttempts = DatabaseSettings.defaultMaxAttempts
    @Option(help: "How long a claimed job stays this instance's without renewal (e.g. 10s).") var lease = CommandDuration(DatabaseSettings.defaultLease)
    @Option(name: .customLong("database-pool-size"), help: "Connections this instance opens to the database at most.")
    var databasePoolSize = DatabaseSettings.defaultPoolSize
    @Option(
        name: .customLong("database-statement-timeout"),
        help: "Longest one database statement (or an idle transaction) may take before the server ends it (e.g. 10s).")
    var databaseStatementTimeout = CommandDuration(DatabaseSettings.defaultStatementTimeout)
    @Option(name: .customLong("scan-step-delay"), help: .hidden) var scanStepDelay: CommandDuration?
    @Flag(name: .customLong("instant-scan"), help: .hidden) var instantScan = false

    func validate() throws {
        do {
            try checkFlags()
        } catch let error as ValidationError where logFormat == .json {
            // Every line `serve --log-format json` writes is JSON, a refused flag's too.
            Logger(label: "bookscan.serve") { JSONLogHandler(label: $0) }.error("\(error.message)")
            throw ExitCode.validationFailure
        }
    }

    private func checkFlags() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        guard jobTTL.duration > .zero, heartbeat.duration > .zero else { throw ValidationError("--job-ttl and --heartbeat must be positive") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard maxConnectionsPerClient >= 0 else { throw ValidationError("--max-connections-per-client must be 0 (no cap) or more") }
        guard maxConnections >= 0, minBodyRate >= 0 else { throw ValidationError("--max-connections and --min-body-rate must be 0 (none) or more") }
        guard bodyRateGrace.duration >= .zero else { throw ValidationError("--body-rate-grace must not be negative") }
        guard headerTimeout.duration > .zero, idleTimeout.duration > .zero else { throw ValidationError("--header-timeout and --idle-timeout must be positive") }
        // An empty token is no token: it would admit every caller that sends an empty one.
        if let token, token.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--token is empty; give a token, or leave --token out to serve without one (loopback only)")
        }
    }

    /// The shared-store settings from the flags and environment; nil without a database.
    func databaseSettings() throws -> DatabaseSettings? {
        guard let text = database ?? EnvironmentSettings().databaseURL else {
            if migrateOnly { throw ValidationError("--migrate-only needs --database (or BOOKSCAN_DATABASE_URL)") }
            return nil
        }
        var url: DatabaseURL
        do {
            url = try DatabaseURL(text)
        } catch {
            throw ValidationError("--database: \(error.description)")
        }
        if url.password == nil, let databasePasswordFile {
            guard let secret = try? String(contentsOfFile: databasePasswordFile, encoding: .utf8) else {
                throw ValidationError("--database-password-file: cannot read \(databasePasswordFile)")
            }
            url.password = secret.trimmingCharacters(in: .newlines)
        }
        guard maxAttempts >= 1, lease.duration > .zero else { throw ValidationError("--max-attempts and --lease must be positive") }
        guard databasePoolSize >= 1, databaseStatementTimeout.duration > .zero else {
            throw ValidationError("--database-pool-size and --database-statement-timeout must be positive")
        }
        if let roots = url.rootCertificatePath, !FileManager.default.isReadableFile(atPath: roots) {
            throw ValidationError("--database: sslrootcert \(roots) cannot be read")
        }
        return DatabaseSettings(
            url: url, instance: instance, lease: lease.duration, maxAttempts: maxAttempts, poolSize: databasePoolSize,
            statementTimeout: databaseStatementTimeout.duration)
    }

    func run() async throws {
        let level: Logger.Level = verbose ? .info : .notice
        switch logFormat {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        do {
            try await serve()
        } catch let error as ValidationError where logFormat == .json {
            say(error.message, level: .error)
            throw ExitCode.validationFailure
        }
    }

    /// Writes one of serve's own lines: `bookscan serve: …` as text, or a JSON log line (with `metadata`).
    private func say(_ message: String, level: Logger.Level = .notice, metadata: Logger.Metadata = [:]) {
        switch logFormat {
        case .text: FileHandle.standardError.write(Data("bookscan serve: \(message)\n".utf8))
        case .json: Logger(label: "bookscan.serve").log(level: level, "\(message)", metadata: metadata)
        }
    }

    private func serve() async throws {
        let database = try databaseSettings()
        if migrateOnly, let database {
            do {
                let applied = try await DatabaseSchema.migrate(database.url, logger: Logger(label: "bookscan.serve"))
                let note = applied.isEmpty ? "already at version \(DatabaseSchema.latestVersion)" : "applied \(applied.map(String.init).joined(separator: ", "))"
                say("database \(database.url): \(note)")
                return
            } catch {
                say("database \(database.url): \(DatabaseErrorText.describe(error, url: database.url) ?? String(String(describing: error).prefix(300)))", level: .error)
                throw ExitCode(ExitStatus.unreachable.rawValue)
            }
        }
        let token = self.token ?? EnvironmentSettings().token
        if token == nil && !Self.isLoopback(host) && !allowUnauthenticated {
            throw ValidationError(
                "refusing to listen on \(host) without a token; set BOOKSCAN_TOKEN, or pass --allow-unauthenticated")
        }
        var settings = ServiceConfiguration(
            host: host, port: port, token: token, workers: workers, queueCapacity: queue, maxBytes: maxBytes, maxPixels: maxPixels,
            jobTTL: jobTTL.duration, heartbeatInterval: heartbeat.duration
        ).injecting(FaultSeams(scanStepDelay: scanStepDelay?.duration, instantScan: instantScan))
        settings.uploadMemory = max(uploadMemory, maxBytes)
        settings.maxConnectionsPerClient = maxConnectionsPerClient > 0 ? maxConnectionsPerClient : nil
        settings.maxConnections = maxConnections > 0 ? maxConnections : nil
        settings.bodyRateFloor = minBodyRate > 0 ? BodyRateFloor(bytesPerSecond: minBodyRate, grace: bodyRateGrace.duration) : nil
        settings.analyticsLogPath = analyticsLog
        let banner = ServeBanner(scheme: tlsCertificate == nil ? "http" : "https", host: host, port: port)
        settings.webOrigins = banner.authorities(lanAddresses: ServeBanner.lanAddresses(ipv6: host.contains(":")))
        settings.headerTimeout = headerTimeout.duration
        settings.idleTimeout = idleTimeout.duration
        settings.engine.titles = .recognizer(recognizer, OCRSettings(dataPath: ocrData, language: ocrLanguage))
        settings.database = database
        if let tlsCertificate, let tlsKey {
            do {
                settings.tls = try ServiceTLS(certificatePath: tlsCertificate, keyPath: tlsKey)
            } catch {
                say("TLS: \(error)", level: .error)
                throw ExitCode.validationFailure
            }
        }
        let configuration = settings
        let host = self.host
        let scheme = configuration.scheme
        let workerCount = configuration.workers
        let showsBanner = logFormat == .text
        let authNote = (token == nil ? "no token: anyone who can reach \(host) may use it" : "bearer token required")
            + (database.map { "; jobs in \($0.url) as \($0.instance)" } ?? "")
        let instanceName = database?.instance ?? DatabaseSettings.processInstance
        do {
            var logger = Logger(label: "bookscan.serve")
            logger[metadataKey: "instance"] = .string(instanceName)
            try await ScanServer(configuration: configuration, logger: logger)
                .run(shutdownSignals: [.sigterm, .sigint]) { port in
                    say(
                        "listening on \(scheme)://\(host):\(port) (\(authNote); \(workerCount) workers)",
                        metadata: [
                            "url": "\(scheme)://\(host):\(port)", "port": .stringConvertible(port), "workers": .stringConvertible(workerCount),
                            "instance": "\(instanceName)",
                        ])
                    // The web client's address (and, on every address, a QR code for each LAN one); JSON logs stay JSON only.
                    if showsBanner { ServeBanner(scheme: scheme, host: host, port: port).write() }
                }
        } catch let error as SpineReadingError {
            say("\(error)", level: .error)
            throw ExitCode(ExitStatus.ocrUnavailable.rawValue)
        } catch {
            // The shared store's database: say what failed (PSQLError's own text is a generic line on purpose).
            guard let database, let text = DatabaseErrorText.describe(error, url: database.url) else { throw error }
            say("database \(database.url): \(text)", level: .error)
            throw ExitCode(ExitStatus.unreachable.rawValue)
        }
        say("stopped", metadata: ["instance": "\(instanceName)"])
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// How `bookscan serve` writes its log lines.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

extension RecognizerKind: ExpressibleByArgument {}
