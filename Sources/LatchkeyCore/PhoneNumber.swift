/// Phone numbers in E.164 form: `+`, a country code that does not start with 0, and at most 15
/// digits in all (`+439999999999`).
public enum PhoneNumber {
    /// Whether `text` is an E.164 number with 8 to 15 digits.
    public static func isValid(_ text: String) -> Bool {
        guard text.first == "+" else { return false }
        let digits = text.dropFirst()
        return (8...15).contains(digits.count) && digits.first != "0"
            && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
