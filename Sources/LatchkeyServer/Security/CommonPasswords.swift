import Foundation
import LatchkeyCore

/// Passwords too common to accept, whatever the issuer's other rules say (ASVS V6.2.11, NIST
/// SP 800-63B §3.1.1.2): the lists Django's `CommonPasswordValidator` ships, compared as Django
/// does, lower-cased and trimmed. Only the server holds the list (about 160 KB); the SDK checks the
/// issuer's other rules before sending and learns of this one from the server's 419.
public enum CommonPasswords {
    /// Built on first use, once per process.
    static let set: Set<Substring> = Set(list.split(separator: "\n"))

    /// Whether `password` is on the list.
    public static func contains(_ password: String) -> Bool {
        set.contains(Substring(password.trimmingCharacters(in: .whitespaces).lowercased()))
    }
}

extension IssuerSettings {
    /// The issuer's password rules (419) and, unless `rejectCommonPasswords` is off, the common
    /// password list (419): every path that sets a new password checks it here.
    ///
    /// - Throws: `DomainError` 419 (`password_rules`) naming `field`.
    func validateNewPassword(_ password: String?, field: String) throws(DomainError) {
        try self.password.validate(password, field: field)
        if rejectCommonPasswords, let password, !password.isEmpty, CommonPasswords.contains(password) {
            throw .passwordRules("This password is on lists of commonly used passwords; choose one that is harder to guess.",
                                 field: field)
        }
    }
}
