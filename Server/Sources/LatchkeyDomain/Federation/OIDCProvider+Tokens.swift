import Foundation
import LatchkeyCore

extension OIDCProvider {
    package static func sameIssuer(_ a: String, _ b: String) -> Bool {
        func trimmed(_ value: String) -> String { value.hasSuffix("/") ? String(value.dropLast()) : value }
        return trimmed(a) == trimmed(b)
    }

    /// A base64url segment of a JWT, decoded.
    package static func segment(_ token: String, _ index: Int) -> Data? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return Data(base64URL: String(parts[index]))
    }

    package static func keyID(of token: String) -> String? {
        segment(token, 0).flatMap { try? JSONDecoder().decode(JWTHeaderFields.self, from: $0) }?.kid
    }
}
