/// The issuer's passcode (PIN) rules (`PDUserPasscodeConfigurations`).
///
/// With `allowSameValues` off, two identical adjacent characters are refused (the spec's `7788`,
/// and `111111`); with `allowIncrementalValues` off, three or more ascending consecutive digits are
/// refused (`123456`, `901234`).
public struct PasscodeConfigurations: Codable, Sendable, Hashable {
    public var validationEnabled: Bool
    public var length: Int
    public var numericOnly: Bool
    public var allowSameValues: Bool
    public var allowIncrementalValues: Bool
    public var regularExpression: String

    public init(validationEnabled: Bool = true, length: Int = 6, numericOnly: Bool = true,
                allowSameValues: Bool = false, allowIncrementalValues: Bool = false,
                regularExpression: String = "0-9") {
        self.validationEnabled = validationEnabled
        self.length = length
        self.numericOnly = numericOnly
        self.allowSameValues = allowSameValues
        self.allowIncrementalValues = allowIncrementalValues
        self.regularExpression = regularExpression
    }

    /// Latchkey's defaults (DESIGN §6): 6 digits, no repeated or ascending runs.
    public static let `default` = PasscodeConfigurations()

    /// Checks a proposed passcode; throws 420 naming `field` for the first rule it breaks.
    public func validate(_ passcode: String?, field: String) throws(DomainError) {
        guard let passcode, !passcode.isEmpty else {
            throw .passcodeRules("A passcode is required.", field: field)
        }
        guard validationEnabled else { return }
        if passcode.unicodeScalars.count != length {
            throw .passcodeRules("The passcode must have exactly \(length) characters.", field: field)
        }
        if numericOnly, !passcode.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
            throw .passcodeRules("The passcode must contain digits only.", field: field)
        }
        if !CharacterClass(regularExpression).allows(passcode) {
            throw .passcodeRules("The passcode contains a character outside \(regularExpression).", field: field)
        }
        let values = passcode.unicodeScalars.map(\.value)
        if !allowSameValues, zip(values, values.dropFirst()).contains(where: { $0 == $1 }) {
            throw .passcodeRules("The passcode must not repeat a digit (such as 7788).", field: field)
        }
        if !allowIncrementalValues, Self.hasAscendingRun(values, length: 3) {
            throw .passcodeRules("The passcode must not contain ascending digits (such as 1234).", field: field)
        }
    }

    private static func hasAscendingRun(_ values: [UInt32], length: Int) -> Bool {
        var run = 1
        for (previous, next) in zip(values, values.dropFirst()) {
            run = next == previous + 1 ? run + 1 : 1
            if run >= length { return true }
        }
        return false
    }
}
