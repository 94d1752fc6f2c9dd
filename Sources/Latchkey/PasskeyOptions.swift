import Foundation
import LatchkeyAPI
import LatchkeyCore

/// What a platform authenticator needs to create a passkey, read from the server's
/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn Level 3 §5.4): the values
/// `ASAuthorizationPlatformPublicKeyCredentialProvider.createCredentialRegistrationRequest` takes,
/// with the binary ones decoded from base64url.
public struct PasskeyRegistrationOptions: Sendable, Equatable {
    /// The relying party's id (a domain: the app's associated domain `webcredentials:<id>`).
    public let relyingPartyID: String
    /// The relying party's name, as the authenticator may show it.
    public let relyingPartyName: String
    /// The server's one-time challenge.
    public let challenge: Data
    /// The user handle the passkey stores and answers at each login (never the email).
    public let userID: Data
    /// The account name the authenticator shows (the wallet's email).
    public let userName: String
    public let userDisplayName: String
    /// The ids of the wallet's passkeys already registered: an authenticator holding one of them
    /// creates no second one.
    public let excludedCredentialIDs: [Data]
    /// The COSE algorithms the server accepts, most preferred first (-7 ES256, -8 EdDSA).
    public let algorithms: [Int]
    /// How long the server keeps the challenge, when it says.
    public let timeout: Duration?
    /// `required`, `preferred` or `discouraged`, when the server says.
    public let userVerification: String?

    /// Options from WebAuthn's JSON form, as a server or a web page writes them.
    /// - Throws: `LatchkeyError` (`.transport`, `.unexpectedAnswer`) naming the member that is
    ///   missing or not base64url.
    public init(json: Data) throws(LatchkeyError) {
        try self.init(WebAuthnJSON.decode(Components.Schemas.PublicKeyCredentialCreationOptionsJSON.self, from: json, domain: .factors),
                      defaultRelyingPartyID: nil, domain: .factors)
    }

    /// Options from the server's answer; `defaultRelyingPartyID` stands for an `rp.id` it leaves
    /// out (WebAuthn: the origin's host).
    init(_ wire: Components.Schemas.PublicKeyCredentialCreationOptionsJSON, defaultRelyingPartyID: String?,
         domain: ErrorDomain) throws(LatchkeyError) {
        guard let relyingPartyID = wire.rp.id ?? defaultRelyingPartyID, !relyingPartyID.isEmpty else {
            throw WebAuthnJSON.malformed("rp.id", domain: domain)
        }
        self.relyingPartyID = relyingPartyID
        relyingPartyName = wire.rp.name
        challenge = try WebAuthnJSON.bytes(wire.challenge, "challenge", domain: domain)
        userID = try WebAuthnJSON.bytes(wire.user.id, "user.id", domain: domain)
        (userName, userDisplayName) = (wire.user.name, wire.user.displayName)
        excludedCredentialIDs = try (wire.excludeCredentials ?? []).map { (descriptor) throws(LatchkeyError) in
            try WebAuthnJSON.bytes(descriptor.id, "excludeCredentials.id", domain: domain)
        }
        algorithms = wire.pubKeyCredParams.map(\.alg)
        timeout = wire.timeout.map { .milliseconds($0) }
        userVerification = wire.authenticatorSelection?.userVerification
    }
}

/// What a platform authenticator needs to sign in with a passkey, read from the server's
/// `PublicKeyCredentialRequestOptionsJSON` (WebAuthn Level 3 §5.5): the values
/// `createCredentialAssertionRequest` takes.
public struct PasskeyAssertionOptions: Sendable, Equatable {
    /// The relying party's id: the domain the passkey was created for.
    public let relyingPartyID: String
    /// The server's one-time challenge.
    public let challenge: Data
    /// The passkeys that may answer (the MFA prompt names the wallet's); empty for a
    /// discoverable login, where the authenticator offers every passkey it holds for the domain.
    public let allowedCredentialIDs: [Data]
    /// How long the server keeps the challenge, when it says.
    public let timeout: Duration?
    /// `required`, `preferred` or `discouraged`, when the server says.
    public let userVerification: String?

    /// Options from WebAuthn's JSON form, as a server or a web page writes them.
    /// - Throws: `LatchkeyError` (`.transport`, `.unexpectedAnswer`) naming the member that is
    ///   missing or not base64url.
    public init(json: Data) throws(LatchkeyError) {
        try self.init(WebAuthnJSON.decode(Components.Schemas.PublicKeyCredentialRequestOptionsJSON.self, from: json, domain: .factors),
                      defaultRelyingPartyID: nil, domain: .factors)
    }

    /// Options from the server's answer; `defaultRelyingPartyID` stands for an `rpId` it leaves
    /// out (WebAuthn: the origin's host).
    init(_ wire: Components.Schemas.PublicKeyCredentialRequestOptionsJSON, defaultRelyingPartyID: String?,
         domain: ErrorDomain) throws(LatchkeyError) {
        guard let relyingPartyID = wire.rpId ?? defaultRelyingPartyID, !relyingPartyID.isEmpty else {
            throw WebAuthnJSON.malformed("rpId", domain: domain)
        }
        self.relyingPartyID = relyingPartyID
        challenge = try WebAuthnJSON.bytes(wire.challenge, "challenge", domain: domain)
        allowedCredentialIDs = try (wire.allowCredentials ?? []).map { (descriptor) throws(LatchkeyError) in
            try WebAuthnJSON.bytes(descriptor.id, "allowCredentials.id", domain: domain)
        }
        timeout = wire.timeout.map { .milliseconds($0) }
        userVerification = wire.userVerification
    }
}

/// WebAuthn's JSON forms: binary values are base64url without padding (Level 3 §5.1), read
/// strictly (`Base64URL`).
enum WebAuthnJSON {
    /// The bytes of a base64url member; empty or malformed is an unreadable answer.
    static func bytes(_ text: String, _ member: String, domain: ErrorDomain) throws(LatchkeyError) -> Data {
        guard !text.isEmpty, let bytes = Data(base64URL: text) else { throw malformed(member, domain: domain) }
        return bytes
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from json: Data, domain: ErrorDomain) throws(LatchkeyError) -> Value {
        do { return try JSONDecoder().decode(type, from: json) } catch {
            let detail = "The WebAuthn options are not the JSON WebAuthn describes: \(error)"
            throw LatchkeyError(kind: .transport, code: .serverError, domain: domain, id: .unexpectedAnswer,
                                message: detail, detail: detail)
        }
    }

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding the generated types (strings, arrays, an empty object) cannot fail.
        return (try? encoder.encode(value)) ?? Data()
    }

    static func malformed(_ member: String, domain: ErrorDomain) -> LatchkeyError {
        let detail = "The WebAuthn options' \(member) is missing or not base64url."
        return LatchkeyError(kind: .transport, code: .serverError, domain: domain, id: .unexpectedAnswer,
                             message: detail, detail: detail, field: member)
    }
}
