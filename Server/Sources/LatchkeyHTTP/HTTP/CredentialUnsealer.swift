import Foundation
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain

/// Opens the sealed credentials of a request before anything else reads its body: for
/// the operation's sealable fields (`x-latchkey-sealed`, `SealedField.all`), a sealed value is
/// opened with the server's keys and replaced by the plain value; a plain value of a kind the
/// issuer requires sealed is refused. The seal must be bound to its field's pointer, the operation
/// and the request's DPoP proof (its key's thumbprint and `jti`), so it cannot be moved to another
/// field or call, nor sent under another proof; the edge records the proof of a request whose seal
/// opened, so no replica accepts it twice. Every refusal is 400 naming the field
/// (`seal_required` for a plain value the issuer requires sealed, `seal_key_unknown` for a key the
/// server does not hold, else `invalid_field`), and never echoes the value.
package struct CredentialUnsealer: Sendable {
    package let keys: SealKeyring
    package let settings: EncryptionSettings
    /// The profile fields the issuer marks `pciEncryptionRequired`, by operation: always sealed.
    package let profileFields: [String: [SealedField]]
    package let now: @Sendable () -> Date

    package init(keys: SealKeyring, settings: EncryptionSettings, metadata: ProfileMetadata = .default,
                 now: @escaping @Sendable () -> Date) {
        self.keys = keys
        self.settings = settings
        self.profileFields = metadata.pciFieldPointers.mapValues { $0.map { SealedField(pointer: $0, kind: .profileField) } }
        self.now = now
    }

    /// The fields of `operationID` that may carry a sealed value: its credentials
    /// (`x-latchkey-sealed`) and the issuer's sealed profile fields.
    package func fields(of operationID: String) -> [SealedField] {
        (SealedField.all[operationID] ?? []) + (profileFields[operationID] ?? [])
    }

    /// Whether the edge of `operationID` runs this check: operations with sealable fields, and
    /// those that may carry profile fields (a seal there is refused once the issuer unmarked it).
    package func guards(_ operationID: String) -> Bool {
        !fields(of: operationID).isEmpty || ProfileMetadata.profileOperations.contains(operationID)
    }

    /// The request with its sealed fields opened, and whether one was. For an operation with
    /// sealable fields the body the handler decodes is always the one inspected here, written
    /// again after one parse (so a key given twice cannot show this check one value and the
    /// handler another); a body that is not a JSON object is refused.
    /// - Throws: `DomainError` 400 naming the field (`seal_required`, `seal_key_unknown`,
    ///   `invalid_field`; `body` for a body that is not a JSON object).
    package func open(_ request: Request, operationID: String, proof: DPoPProof?, maxBytes: Int) async throws
        -> (request: Request, opened: Bool) {
        let fields = fields(of: operationID)
        guard guards(operationID) else { return (request, false) }
        var request = request
        let buffer = try await request.collectBody(upTo: maxBytes)
        guard buffer.readableBytes > 0 else { return (request, false) }
        let time = now()
        var opened = 0
        let rewritten: (body: Data, changed: Bool)
        do {
            rewritten = try SealedField.rewrite(Data(buffer: buffer), fields: fields) { pointer, kind, value in
                guard SealedCredential.isSealed(value) else {
                    if settings.requiresSealing(kind) { throw DomainError(.sealRequired, field: Self.name(pointer)) }
                    return value
                }
                guard let proof else {
                    throw DomainError.invalidField(Self.name(pointer), "A sealed value needs the request's DPoP proof it is bound to.")
                }
                opened += 1
                guard opened <= SealedCredential.maximumPerRequest else {
                    throw DomainError.invalidField(Self.name(pointer),
                                                   "At most \(SealedCredential.maximumPerRequest) sealed values in one request.")
                }
                let plain: String
                do throws(SealKeyring.Refusal) {
                    plain = try keys.open(value, field: pointer, operation: operationID, keyThumbprint: proof.thumbprint,
                                          proofID: proof.jti, now: time)
                } catch {
                    if error == .unknownKey { throw DomainError(.sealKeyUnknown, field: Self.name(pointer)) }
                    throw DomainError.invalidField(Self.name(pointer), Self.message(error))
                }
                // The edge's NUL guard saw only the seal: what it held is checked here.
                if plain.contains("\u{0}") {
                    throw DomainError.invalidField(Self.name(pointer), "The value may not contain a NUL character.")
                }
                return plain
            }
        } catch SealedFieldError.notJSON {
            // Refused here rather than left to the handler's decoder, which might read differently.
            throw DomainError.invalidField("body", "The body must be a JSON object.")
        }
        // A seal where this server expects none (an app that read settings which changed since) is
        // refused rather than stored as a value; `seal_key_unknown` makes the SDK read them again.
        // Looked for in the body as sent, outside the fields that may hold seals (whose opened
        // values may be anything).
        let patterns = fields.map { $0.pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init) }
        if let stray = Self.sealedPointer(in: try? JSONSerialization.jsonObject(with: Data(buffer: buffer)), path: "", outside: patterns) {
            throw DomainError(.sealKeyUnknown, message: "A sealed value where this server expects none: read the encryption settings again.",
                              field: Self.name(stray))
        }
        request.body = RequestBody(buffer: ByteBuffer(data: rewritten.body))
        return (request, opened > 0)
    }

    /// The pointer of the first string that looks sealed outside the `outside` pointer patterns
    /// (token lists, `*` for any token), if any.
    static func sealedPointer(in node: Any?, path: String, outside patterns: [[String]]) -> String? {
        if let text = node as? String {
            guard SealedCredential.isSealed(text) else { return nil }
            let tokens = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            let declared = patterns.contains { pattern in
                pattern.count == tokens.count && zip(pattern, tokens).allSatisfy { $0 == "*" || $0 == $1 }
            }
            return declared ? nil : path
        }
        if let object = node as? [String: Any] {
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                if let found = sealedPointer(in: value, path: path + "/" + ProfileMetadata.escape(key), outside: patterns) { return found }
            }
        }
        if let array = node as? [Any] {
            for (index, value) in array.enumerated() {
                if let found = sealedPointer(in: value, path: path + "/\(index)", outside: patterns) { return found }
            }
        }
        return nil
    }

    /// The field as error envelopes name fields: the pointer without its leading slash, dotted.
    static func name(_ pointer: String) -> String {
        pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") }
            .joined(separator: ".")
    }

    static func message(_ refusal: SealKeyring.Refusal) -> LocalizableText {
        switch refusal {
        case .malformed: LocalizableText("The sealed value is not in the form hpke1.<key id>.<enc>.<ciphertext>.")
        case .unknownKey: LocalizableText("The sealed value names a key this server does not hold (retired or unknown): fetch the encryption settings again.")
        case .doesNotOpen: LocalizableText("The sealed value does not open for this field, call and DPoP proof.")
        }
    }
}
