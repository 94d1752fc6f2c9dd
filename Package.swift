// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .library(name: "LatchkeyCore", targets: ["LatchkeyCore"]),
        .library(name: "Latchkey", targets: ["Latchkey"]),
        .library(name: "LatchkeyServer", targets: ["LatchkeyServer"]),
        .executable(name: "latchkey", targets: ["LatchkeyCLI"]),
        .executable(name: "latchkey-bench", targets: ["LatchkeyBenchmark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.0"),
    ],
    targets: [
        /// Domain types and rules of the spec; Foundation only (iOS and Linux).
        .target(name: "LatchkeyCore"),
        /// The wire contract: `openapi.yaml` and the code generated from it.
        .target(
            name: "LatchkeyAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        /// The SDK a wallet app embeds.
        .target(
            name: "Latchkey",
            dependencies: [
                "LatchkeyCore", "LatchkeyAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        /// The server: HTTP API, storage, courier.
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "LatchkeyCore", "LatchkeyAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .executableTarget(
            name: "LatchkeyCLI",
            dependencies: [
                "LatchkeyServer", "Latchkey", "LatchkeyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "LatchkeyBenchmark",
            dependencies: [
                "LatchkeyServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        /// Helpers shared by the test targets: test configuration, temporary databases.
        .target(
            name: "LatchkeyTestSupport",
            dependencies: ["LatchkeyServer", .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "LatchkeyCoreTests", dependencies: ["LatchkeyCore"]),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer", "LatchkeyTestSupport", "LatchkeyCore",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "LatchkeyTests",
            dependencies: ["Latchkey", "LatchkeyTestSupport", "LatchkeyServer", "LatchkeyCore",
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "X509", package: "swift-certificates")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
