import Foundation
import JWTKit

/// A JSON value as a provider sends it in a claim: claims other than the few the server checks
/// are kept as they came (`customerInfoJson`) and read as text where they are scalars.
package enum ClaimValue: Codable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([ClaimValue])
    case object([String: ClaimValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([ClaimValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: ClaimValue].self)) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value):
            // Whole numbers stay whole (`1700000000`, not `1.7e9`), as the provider wrote them.
            if value.rounded() == value, abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A scalar as text (a string, a number, a boolean); nil for anything else.
    package var text: String? {
        switch self {
        case .string(let value): value
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): String(value)
        case .null, .array, .object: nil
        }
    }
}

/// Every claim of a JSON object (an ID token's payload, a userinfo answer), decoded once: the ones
/// the server checks typed, all of them kept as values.
package struct OIDCClaims: Decodable, Sendable, Equatable {
    /// Every claim as sent.
    package var all: [String: ClaimValue]

    package var subject: String? { if case .string(let value)? = all["sub"] { value } else { nil } }
    package var email: String? { if case .string(let value)? = all["email"] { value } else { nil } }
    /// `email_verified` when it is the boolean `true` (some providers send the string "true": not trusted).
    package var emailVerified: Bool { all["email_verified"] == .bool(true) }
    package var authorizedParty: ClaimValue? { all["azp"] }
    /// `nbf` and `iat` as seconds since 1970, when they are numbers.
    package var notBefore: Double? { if case .number(let value)? = all["nbf"] { value } else { nil } }
    package var issuedAt: Double? { if case .number(let value)? = all["iat"] { value } else { nil } }

    package init(all: [String: ClaimValue]) { self.all = all }

    package init(from decoder: any Decoder) throws {
        all = try [String: ClaimValue](from: decoder)
    }

    /// The claims as JSON text with sorted keys (what `customerInfoJson` carries).
    package var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(all)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// These claims completed by `other`'s where these have none (an ID token's claims win).
    package func completed(by other: OIDCClaims) -> OIDCClaims {
        OIDCClaims(all: all.merging(other.all) { mine, _ in mine })
    }
}

/// The ID token's payload: the claims jwt-kit verifies the signature over, with the registered
/// ones typed for the checks and every claim kept (`OIDCClaims`), decoded once.
package struct IDTokenPayload: JWTPayload {
    package var iss: IssuerClaim
    package var sub: SubjectClaim
    package var aud: AudienceClaim
    package var exp: ExpirationClaim
    package var claims: OIDCClaims

    private enum CodingKeys: String, CodingKey { case iss, sub, aud, exp }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(IssuerClaim.self, forKey: .iss)
        sub = try container.decode(SubjectClaim.self, forKey: .sub)
        aud = try container.decode(AudienceClaim.self, forKey: .aud)
        exp = try container.decode(ExpirationClaim.self, forKey: .exp)
        claims = try OIDCClaims(from: decoder)
    }

    /// The server verifies tokens, it never signs them.
    package func encode(to encoder: any Encoder) throws {
        try claims.all.encode(to: encoder)
    }

    /// The checks are the provider's (`OIDCProvider.verify`), made after the signature.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The JWT header fields the server reads before verifying: the key id.
package struct JWTHeaderFields: Decodable {
    package var kid: String?
}

/// The token endpoint's answer.
package struct TokenResponse: Decodable {
    package var id_token: String?
    package var access_token: String?
}

/// A JWKS as far as the key ids go (jwt-kit reads the keys themselves).
package struct KeySetIDs: Decodable {
    package struct Key: Decodable { var kid: String? }
    package var keys: [Key]
}
