import Foundation

/// Email address checks shared by the server and the SDK.
public enum EmailAddress {
    /// A pragmatic syntax check: one `@`, a non-empty local part without spaces, and a domain
    /// with at least one dot and no empty label.
    public static func isValid(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return false }
        guard email.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }
    }

    /// The form in which addresses are compared and kept unique: trimmed and lower-cased.
    public static func normalized(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
