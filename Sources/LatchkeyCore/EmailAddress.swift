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
        // Domain labels are letters, digits and inner hyphens (RFC 1035), as JSON Schema's
        // `format: email` checks them.
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
    }

    /// The form in which addresses are compared and kept unique: trimmed and lower-cased.
    public static func normalized(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
