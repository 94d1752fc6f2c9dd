// swift-tools-version:6.1
import Foundation
import PackageDescription

/// The server (the wallet's gateway and identity provider), the `latchkey` CLI, the benchmark and
/// every test of the repository. It depends on the SDK's package at the repository's root by path;
/// SwiftPM names a path dependency after its directory, so the name is read from the checkout.
let sdk = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

/// The layers, each a target whose dependencies the compiler checks (docs/architecture.md):
/// LatchkeyDomain ← LatchkeySQL, LatchkeyContract ← LatchkeyHTTP (← LatchkeyServerAPI), LatchkeyAdminHTTP (← LatchkeyAdminAPI)
/// ← LatchkeyServer ← the CLI.
let package = Package(
    name: "LatchkeyServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "latchkey", targets: ["LatchkeyCLI"]),
        .executable(name: "latchkey-bench", targets: ["LatchkeyBenchmark"]),
        .library(name: "LatchkeyServer", targets: ["LatchkeyServer"]),
    ],
    /// `OTLPExport` compiles in the OpenTelemetry exporter (swift-otel over OTLP/HTTP, with
    /// SwiftProtobuf), which `telemetry.tracing.enabled` needs; it is off by default because it
    /// lengthens a first build (docs/operations.md, "Tracing"). The spans themselves
    /// (swift-distributed-tracing) are always compiled and cost nothing while no tracer is set.
    traits: [.trait(name: "OTLPExport", description: "The OTLP/HTTP trace exporter (swift-otel) for telemetry.tracing")],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
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
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // The W3C Trace Context reader swift-otel's propagator uses (standard library and
        // swift-collections only): the tests check that what the server hands the propagator, it reads.
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context", from: "1.0.0"),
    ],
    targets: [
        /// zlib, for the bundled common-password list.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        /// The server's half of the contract: the stubs generated from `openapi.yaml` that route each
        /// operation to `APIProtocol` (the types they use are the SDK's `LatchkeyAPI`).
        .target(
            name: "LatchkeyServerAPI",
            dependencies: [
                .product(name: "LatchkeyAPI", package: sdk), .product(name: "LatchkeyCore", package: sdk),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml"]
        ),
        /// The admin API's contract (its own `openapi.yaml`): types and server stubs, server-only.
        .target(
            name: "LatchkeyAdminAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml", "openapi.yaml"]
        ),
        /// The admin API's client, generated from its document onto `LatchkeyAdminAPI`'s types: the
        /// server's tests call the admin API and read its answers through it.
        .target(
            name: "LatchkeyAdminClient",
            dependencies: [
                "LatchkeyAdminAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml"]
        ),
        /// The admin API over HTTP: operator keys at its edge, roles per operation, thin handlers.
        .target(
            name: "LatchkeyAdminHTTP",
            dependencies: [
                "LatchkeyDomain", "LatchkeyHTTP", "LatchkeyAdminAPI",
                .product(name: "LatchkeyCore", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        /// The domain: services, policies and security rules, the store protocols and records, the
        /// configuration, and the outgoing adapters the services own (courier, OpenID Connect).
        /// It knows no HTTP server and no SQL.
        .target(
            name: "LatchkeyDomain",
            dependencies: [
                "CZlib",
                .product(name: "LatchkeyCore", package: sdk),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Resources/common-passwords.txt.gz"), .copy("Resources/templates"), .copy("Resources/languages")]
        ),
        /// The wallet's contract as the server applies it: each operation's policy
        /// (`x-latchkey-policy`, generated from the document) and the served document (a resource)
        /// with the issuer's rules written in. Only the HTTP targets use it; the domain knows no routes.
        .target(
            name: "LatchkeyContract",
            dependencies: [
                "LatchkeyDomain", .product(name: "LatchkeyCore", package: sdk),
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [.copy("Resources/openapi.yaml")]
        ),
        /// The store on SQLite and PostgreSQL: engines, migrations, the SQL of every store protocol.
        .target(
            name: "LatchkeySQL",
            dependencies: [
                "LatchkeyDomain", .product(name: "LatchkeyCore", package: sdk),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        /// The HTTP edge (identity and device binding resolved into the request context), the
        /// handlers of the contract's operations, the operational routes and the web pages.
        .target(
            name: "LatchkeyHTTP",
            dependencies: [
                "LatchkeyDomain", "LatchkeyContract", "LatchkeyServerAPI",
                .product(name: "LatchkeyAPI", package: sdk), .product(name: "LatchkeyCore", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        /// The composition root: `buildApplication` opens the store, builds the services and the
        /// router, and runs them with the courier and the store's lifecycle.
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "LatchkeyDomain", "LatchkeySQL", "LatchkeyHTTP", "LatchkeyServerAPI", "LatchkeyAdminHTTP",
                .product(name: "LatchkeyAPI", package: sdk), .product(name: "LatchkeyCore", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLPExport"])),
            ]
        ),
        .executableTarget(
            name: "LatchkeyCLI",
            dependencies: [
                "LatchkeyServer", "LatchkeyDomain", "LatchkeySQL",
                .product(name: "Latchkey", package: sdk), .product(name: "LatchkeyCore", package: sdk),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "LatchkeyBenchmark",
            dependencies: [
                "LatchkeyServer", "LatchkeyDomain", "LatchkeySQL", .product(name: "LatchkeyCore", package: sdk),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        /// Helpers shared by the test targets: test configuration, temporary databases, the
        /// contract's client over a test server.
        .target(
            name: "LatchkeyTestSupport",
            dependencies: [
                "LatchkeyServer", "LatchkeyDomain", "LatchkeySQL",
                .product(name: "LatchkeyAPI", package: sdk), .product(name: "LatchkeyCore", package: sdk),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "LatchkeyCoreTests", dependencies: [.product(name: "LatchkeyCore", package: sdk)]),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer", "LatchkeyDomain", "LatchkeyContract", "LatchkeySQL", "LatchkeyHTTP", "LatchkeyAdminHTTP", "LatchkeyAdminAPI",
                "LatchkeyAdminClient", "LatchkeyTestSupport",
                .product(name: "Latchkey", package: sdk),
                .product(name: "LatchkeyCore", package: sdk), .product(name: "LatchkeyAPI", package: sdk),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        /// The SDK against a real in-process server.
        .testTarget(
            name: "LatchkeyTests",
            dependencies: [
                "LatchkeyTestSupport", "LatchkeyServer", "LatchkeyDomain", "LatchkeySQL",
                .product(name: "Latchkey", package: sdk), .product(name: "LatchkeyCore", package: sdk),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
