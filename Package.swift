// swift-tools-version:6.1
import PackageDescription

/// The SDK a wallet app embeds, and the wire contract it shares with the server. This manifest
/// declares only the SDK's dependencies, so an app that adds the repository (in Xcode or SwiftPM,
/// whatever their version) resolves these and nothing of the server. The server, the `latchkey`
/// CLI, the benchmark and every test are the package in `Server/`, which depends on this one by path.
let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .library(name: "Latchkey", targets: ["Latchkey"]),
        .library(name: "LatchkeyCore", targets: ["LatchkeyCore"]),
        .library(name: "LatchkeyAPI", targets: ["LatchkeyAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.0"),
    ],
    targets: [
        /// Domain types and rules of the spec; Foundation only (iOS and Linux).
        .target(name: "LatchkeyCore"),
        /// The wire contract: `openapi.yaml` and the types and client generated from it, committed
        /// (`Scripts/generate-api`), so no build plugin runs in an app's build. The server's stubs
        /// are generated into the server package (`LatchkeyServerAPI`).
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
            ],
            // The privacy manifest an app's archive aggregates (its UserDefaults use and reason).
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
