// swift-tools-version:6.1
// The OpenAPI generator as a tool of its own, so neither Latchkey nor an app that depends on its SDK
// builds it: `Scripts/generate-api` runs it to regenerate Sources/LatchkeyAPI/Generated.
import PackageDescription

let package = Package(
    name: "LatchkeyOpenAPIGenerator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.0")]
)
