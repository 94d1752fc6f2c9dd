import Foundation
import LatchkeyCore

/// One line of an import file (`latchkey users import`): a user as JSON.
///
/// `{"email", "firstName", "lastName", "emailVerified", "phone"?, "externalId"?,
/// "additionalCustomerInformation"?, "password": {"hash"|"value"}, "passcode": {"hash"|"value"}?,
/// "mfaAnswers": [{"question", "hash"|"value"}]?}`. A key not in this list is refused, so a typo
/// cannot import a user without what it meant to give.
public struct ImportLine: Decodable, Sendable {
    public var email: String
    public var firstName: String?
    public var lastName: String?
    public var emailVerified: Bool
    public var phone: String?
    public var externalId: String?
    public var additionalCustomerInformation: [String: String]?
    public var password: ImportedSecret
    public var passcode: ImportedSecret?
    public var mfaAnswers: [ImportedAnswer]?

    /// A secret as another system's hash or as its value (hashed by the import, slowly).
    public struct ImportedSecret: Decodable, Sendable {
        public var hash: String?
        public var value: String?
    }

    /// One MFA answer: the issuer's question and the answer's hash or value.
    public struct ImportedAnswer: Decodable, Sendable {
        public var question: String
        public var hash: String?
        public var value: String?
    }

    package enum Key: String, CodingKey, CaseIterable {
        case email, firstName, lastName, emailVerified, phone, externalId, additionalCustomerInformation, password, passcode,
             mfaAnswers
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        if let unknown = names.first(where: { Key(rawValue: $0) == nil }) {
            throw DomainError.invalidField(
                unknown, "Not a field of an import line; expected one of \(Key.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let container = try decoder.container(keyedBy: Key.self)
        email = try container.decode(String.self, forKey: .email)
        firstName = try container.decodeIfPresent(String.self, forKey: .firstName)
        lastName = try container.decodeIfPresent(String.self, forKey: .lastName)
        emailVerified = try container.decode(Bool.self, forKey: .emailVerified)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        externalId = try container.decodeIfPresent(String.self, forKey: .externalId)
        additionalCustomerInformation = try container.decodeIfPresent([String: String].self, forKey: .additionalCustomerInformation)
        password = try container.decode(ImportedSecret.self, forKey: .password)
        passcode = try container.decodeIfPresent(ImportedSecret.self, forKey: .passcode)
        mfaAnswers = try container.decodeIfPresent([ImportedAnswer].self, forKey: .mfaAnswers)
    }

    /// Lines longer than this are refused before they are decoded.
    public static let maxBytes = 64 * 1024

    /// Decodes and validates one line against the issuer's rules; throws the first thing wrong
    /// with it (a `DomainError` naming the field). A value must meet the current
    /// password and passcode rules; a hash is taken as it is, if its format is one this server
    /// checks (`SecretHasher.recognizes`).
    public static func parse(_ text: Substring, issuer: IssuerSettings) throws(DomainError) -> ImportLine {
        guard text.utf8.count <= maxBytes else { throw .invalidField("line", "Longer than \(maxBytes) bytes.") }
        // PostgreSQL's text cannot hold a NUL: it would fail the whole batch (the HTTP import reads
        // lines no body check has seen).
        if text.utf8.contains(0) || text.contains(#"\u0000"#), let field = nulField(in: text) {
            throw .invalidField(field, "Must not contain NUL characters.")
        }
        let line: ImportLine
        do {
            line = try JSONDecoder().decode(ImportLine.self, from: Data(text.utf8))
        } catch let error as DomainError {
            throw error
        } catch let DecodingError.keyNotFound(key, _) {
            throw .invalidField(key.stringValue, "Required.")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .invalidField(context.codingPath.map(\.stringValue).joined(separator: "."), "Has the wrong type.")
        } catch {
            throw .invalidField("line", "Not a JSON object.")
        }
        try line.validate(issuer)
        return line
    }

    /// The first property (dotted) whose key or text holds a NUL; `line` when the text is no JSON.
    private static func nulField(in text: Substring) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return text.utf8.contains(0) ? "line" : nil
        }
        func find(_ value: Any, _ path: [String]) -> [String]? {
            switch value {
            case let text as String: return text.contains("\u{0}") ? path : nil
            case let array as [Any]: return array.enumerated().lazy.compactMap { find($0.element, path + ["\($0.offset)"]) }.first
            case let object as [String: Any]:
                for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                    if key.contains("\u{0}") { return path + [key] }
                    if let found = find(value, path + [key]) { return found }
                }
                return nil
            default: return nil
            }
        }
        return find(json, []).map { $0.isEmpty ? "line" : $0.joined(separator: ".") }
    }

    private func validate(_ issuer: IssuerSettings) throws(DomainError) {
        let profile = UserProfile(firstName: firstName, lastName: lastName, email: email, phone: phone,
                                  additionalCustomerInformation: additionalCustomerInformation, externalId: externalId)
        // Import lines carry no address: the issuer's required address fields are registration's.
        try issuer.enrollmentRules.validateProfileFields(profile, requireAddress: false)
        try Self.check(password, field: "password") { (value) throws(DomainError) in
            try issuer.validateNewPassword(value, field: "password.value")
        }
        if let passcode {
            try Self.check(passcode, field: "passcode") { (value) throws(DomainError) in
                try issuer.passcode.validate(value, field: "passcode.value")
            }
        }
        var questions: Set<String> = []
        let pool = Set(issuer.mfa.questionsResponse.mfaQuestions)
        for (index, answer) in (mfaAnswers ?? []).enumerated() {
            let field = "mfaAnswers[\(index)]"
            guard pool.contains(answer.question) else {
                throw .invalidField(field + ".question", "Not one of the issuer's MFA questions.")
            }
            guard questions.insert(answer.question).inserted else { throw .invalidField(field + ".question", "Answered twice.") }
            try Self.check(ImportedSecret(hash: answer.hash, value: answer.value), field: field) { (value) throws(DomainError) in
                if !EnrollmentRules.isAcceptableAnswer(value) {
                    throw .invalidField(field + ".value", "Each MFA answer must have 1 to 100 characters.")
                }
            }
        }
    }

    /// Exactly one of hash and value; a hash in a known format, a value that `rules` accept.
    private static func check(_ secret: ImportedSecret, field: String,
                              rules: (String) throws(DomainError) -> Void) throws(DomainError) {
        switch (secret.hash, secret.value) {
        case (let hash?, nil):
            guard hash.utf8.count <= 1024, SecretHasher.recognizes(hash) else {
                throw .invalidField(field + ".hash", "Not a hash format Latchkey reads (Django pbkdf2_sha256, pbkdf2_sha1 "
                                    + "or scrypt; PHC $pbkdf2-sha256$, $pbkdf2-sha512$ or $scrypt$; Latchkey's own).")
            }
        case (nil, let value?):
            try rules(value)
        default:
            throw .invalidField(field, "Give either \"hash\" or \"value\".")
        }
    }
}
