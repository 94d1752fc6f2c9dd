import Crypto
import Foundation
import LatchkeyCore

extension AuditRecorder {
    /// What the audit trail keeps of an identifier typed into a login that names no wallet: the
    /// text itself when it is a well-formed email address or E.164 phone number (what an operator
    /// looks for), otherwise `identifier:` and the first 16 hex digits of its HMAC-SHA256 under a
    /// key derived from the pepper. A password typed into the username field is then never stored,
    /// while the same text typed again gives the same digest, so repeated attempts still correlate;
    /// without the pepper a digest cannot be tested against guesses (a password is a short secret).
    package func identifier(_ typed: String) -> String {
        if Self.looksLikeAnAddress(typed) || PhoneNumber.isValid(typed) { return String(typed.prefix(320)) }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(typed.utf8), using: identifierKey)
        return "identifier:" + mac.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A well-formed email address whose domain ends in a name of two letters or more, as every
    /// top-level domain does: passwords shaped like addresses (`P@ssw0rd.1`, `Summer@2024.ab1`)
    /// pass the address syntax but not this.
    static func looksLikeAnAddress(_ text: String) -> Bool {
        guard EmailAddress.isValid(text), let last = text.split(separator: ".").last else { return false }
        return last.count >= 2 && last.allSatisfy { $0.isASCII && $0.isLetter }
    }
}
