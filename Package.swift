// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "bookscan",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bookscan", targets: ["bookscan"]),
        .executable(name: "fault-campaign", targets: ["FaultCampaignRunner"]),
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
    ],
    targets: [
        // C libraries and the tiny shims that make them safe to call from Swift.
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .target(name: "CJPEGShim", dependencies: ["CLibJPEG"]),
        .systemLibrary(name: "CLibCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CLibCurl"]),
        .systemLibrary(
            name: "CTesseract", pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev", "libleptonica-dev", "tesseract-ocr-eng"])]),

        // image → engine → protocol → service / client → CLI
        .target(name: "ImageKit", dependencies: ["CJPEGShim"], swiftSettings: swiftSettings),
        .target(name: "ImagePreparation", dependencies: ["ImageKit"], swiftSettings: swiftSettings),
        .target(name: "ScanProtocol", swiftSettings: swiftSettings),
        .target(name: "SpineReading", dependencies: ["CTesseract", "ImageKit", "ScanProtocol"], swiftSettings: swiftSettings),
        .target(name: "ScanEngine", dependencies: ["ImageKit", "ScanProtocol", "SpineReading"], swiftSettings: swiftSettings),
        .target(
            name: "ScanService",
            dependencies: [
                "ImageKit", "ScanEngine", "ScanProtocol", "SpineReading",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ScanClient",
            dependencies: [
                "CCurlShim", "ImageKit", "ImagePreparation", "ScanProtocol",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ScanAnalytics",
            dependencies: ["ScanClient", "ScanProtocol", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FaultProxy",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FaultCampaign",
            dependencies: [
                "FaultProxy", "ImagePreparation", "ScanAnalytics", "ScanClient", "ScanProtocol", "ScanService",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FaultCampaignRunner",
            dependencies: [
                "FaultCampaign", "ScanProtocol", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "bookscan",
            dependencies: [
                "ImageKit", "ImagePreparation", "ScanEngine", "ScanProtocol", "ScanService", "ScanClient", "ScanAnalytics",
                "SpineReading",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // Fuzzing: the harness (shared with the regression tests) and two libFuzzer targets. A normal
        // build makes replay tools; scripts/fuzz.sh builds them with -sanitize=fuzzer,address.
        .target(name: "FuzzHarness", dependencies: ["ImageKit", "ImagePreparation", "ScanProtocol"], swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzJPEGPreparation", dependencies: ["FuzzHarness"], swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzWireDecoding", dependencies: ["FuzzHarness"], swiftSettings: swiftSettings),

        .executableTarget(
            name: "EngineEval",
            dependencies: ["ImageKit", "ScanEngine", "ScanProtocol", "SpineReading"],
            path: "Benchmarks/EngineEval",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "ServerBench",
            dependencies: [
                "ScanProtocol", "ScanClient",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ServerBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "TrackerBench",
            dependencies: [
                "ScanProtocol", "ScanClient", "ScanService", "FaultProxy", "ImagePreparation", "ImageKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/TrackerBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PrepareBench",
            dependencies: ["ImagePreparation", "ImageKit"],
            path: "Benchmarks/PrepareBench",
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "ImageKitTests", dependencies: ["ImageKit", "ImagePreparation"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ScanEngineTests", dependencies: ["ScanEngine", "ImageKit", "ImagePreparation", "ScanProtocol"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ScanClientTests",
            dependencies: [
                "ScanClient", "ScanProtocol", "ScanService", "ImagePreparation", "ImageKit", "FaultProxy",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaultCampaignTests",
            dependencies: ["FaultCampaign", "FaultProxy", "ScanClient", "ScanProtocol", "ScanService"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ScanAnalyticsTests", dependencies: ["ScanAnalytics", "ScanClient", "ScanProtocol"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "bookscan", "ImageKit", "ScanClient", "ScanService", "FaultProxy",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            exclude: ["Corpus"],  // the bad-input corpus: read from the source tree by path, not bundled
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SpineReadingTests", dependencies: ["SpineReading", "ScanEngine", "ImageKit", "ImagePreparation", "ScanProtocol"],
            exclude: ["Fixtures"],  // read from the source tree by path
            swiftSettings: swiftSettings),
        .testTarget(name: "ScanProtocolTests", dependencies: ["ScanProtocol"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FuzzRegressionTests", dependencies: ["FuzzHarness", "ImageKit", "ScanProtocol"], exclude: ["Regressions"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ScanServiceTests",
            dependencies: [
                "ScanService", "ScanProtocol", "ImageKit", "ScanClient", "SpineReading",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
