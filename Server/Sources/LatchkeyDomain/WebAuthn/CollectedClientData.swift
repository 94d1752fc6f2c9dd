import Foundation
import LatchkeyCore

/// The client data of a ceremony (WebAuthn Level 3 §5.8.1), parsed from the clientDataJSON bytes the
/// client sent: they are hashed into what the authenticator signs, so the server reads the very bytes.
struct CollectedClientData {
    /// The longest clientDataJSON accepted, in bytes (browsers send a few hundred).
    static let maximumSize = 16_384

    var type: String
    var challenge: Data
    var origin: String

    /// Parses `json` strictly: an object whose `type`, `challenge` (base64url without padding) and
    /// `origin` are strings, whose `crossOrigin`, when present, is a boolean, and that has no `topOrigin`.
    /// - Throws: `WebAuthnError.malformed` for anything else, `.crossOrigin` when `crossOrigin` is true
    ///   or a `topOrigin` is present.
    init(_ json: Data) throws(WebAuthnError) {
        guard json.count <= CollectedClientData.maximumSize else { throw .malformed("clientDataJSON is too long") }
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: json)
        } catch {
            throw .malformed("clientDataJSON is not an object with string type, challenge and origin and a boolean crossOrigin")
        }
        if fields.crossOrigin == true || fields.hasTopOrigin { throw .crossOrigin }
        guard let challenge = Base64URL.decode(fields.challenge) else { throw .malformed("clientDataJSON challenge is not base64url") }
        self.type = fields.type
        self.challenge = challenge
        self.origin = fields.origin
    }

    /// The members read; JSONDecoder holds each to its type (a number is no boolean, no string).
    private struct Fields: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var hasTopOrigin: Bool

        enum CodingKeys: String, CodingKey { case type, challenge, origin, crossOrigin, topOrigin }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            challenge = try container.decode(String.self, forKey: .challenge)
            origin = try container.decode(String.self, forKey: .origin)
            crossOrigin = try container.decodeIfPresent(Bool.self, forKey: .crossOrigin)
            hasTopOrigin = container.contains(.topOrigin)
        }
    }
}
