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
    traits: [
        .trait(name: "Server", description: "The server, the `latchkey` CLI and the benchmark, with their dependencies "
            + "(Hummingbird, PostgreSQL, SQLite, …). On by default; an app that only embeds the SDK depends on "
            + "the `Latchkey` product with `traits: []` and resolves only the SDK's few packages."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        // The SDK's: the OpenAPI runtime and its URLSession transport, HTTP types, swift-crypto.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.0"),
        // The server's, used only under the `Server` trait.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
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
        /// The wire contract: `openapi.yaml` and the code generated from it, committed
        /// (`Scripts/generate-api`), so no build plugin runs in an app's build.
        .target(
            name: "LatchkeyAPI",
            dependencies: ["LatchkeyCore", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
        /// The SDK a wallet app embeds.
        .target(
            name: "Latchkey",
            dependencies: [
                "LatchkeyCore", "LatchkeyAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        /// The server: HTTP API, storage, courier.
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "LatchkeyCore", "LatchkeyAPI",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Server"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
                .product(name: "SQLiteNIO", package: "sqlite-nio", condition: .when(traits: ["Server"])),
                .product(name: "Yams", package: "Yams", condition: .when(traits: ["Server"])),
                .product(name: "Mustache", package: "swift-mustache", condition: .when(traits: ["Server"])),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["Server"])),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: ["Server"])),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Server"])),
            ]
        ),
        .executableTarget(
            name: "LatchkeyCLI",
            dependencies: [
                "LatchkeyServer", "Latchkey", "LatchkeyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Server"])),
            ]
        ),
        .executableTarget(
            name: "LatchkeyBenchmark",
            dependencies: [
                "LatchkeyServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Server"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Server"])),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        /// Helpers shared by the test targets: test configuration, temporary databases.
        .target(
            name: "LatchkeyTestSupport",
            dependencies: ["LatchkeyServer", "LatchkeyAPI",
                           .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
                           .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                           .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Server"])), .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "LatchkeyCoreTests", dependencies: ["LatchkeyCore"]),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer", "LatchkeyTestSupport", "LatchkeyCore", "LatchkeyAPI",
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "Yams", package: "Yams", condition: .when(traits: ["Server"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["Server"])),
            ]
        ),
        .testTarget(
            name: "LatchkeyTests",
            dependencies: ["Latchkey", "LatchkeyTestSupport", "LatchkeyServer", "LatchkeyCore",
                           .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
                           .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["Server"]))]
        ),
    ],
    swiftLanguageModes: [.v6]
)
