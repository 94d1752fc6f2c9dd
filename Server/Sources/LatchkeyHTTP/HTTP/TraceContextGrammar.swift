/// The part of W3C Trace Context's grammar that OpenTelemetry's propagator reads
/// (`TraceHeaders`). Standard library only, so libFuzzer compiles it on its own
/// (`Scripts/fuzz-cbor`).
package enum TraceContextGrammar {
    /// `00-<trace-id>-<parent-id>-<flags>` in lowercase hex, 55 characters (the version
    /// OpenTelemetry's propagator reads), neither id all zeros.
    package static func isTraceparent(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 55, bytes[0] == zero, bytes[1] == zero, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash
        else { return false }
        let traceID = bytes[3..<35], parentID = bytes[36..<52], flags = bytes[53..<55]
        guard [traceID, parentID, flags].allSatisfy({ $0.allSatisfy(isLowerHex) }) else { return false }
        return traceID.contains { $0 != zero } && parentID.contains { $0 != zero }
    }

    /// 1 to 32 `key=value` members separated by commas, each but the first possibly after
    /// spaces; each key a W3C simple or multi-tenant key, each value 1 to 256 printable
    /// characters without `,` or `=`, not ending in a space. This is W3C's grammar without its
    /// empty members and surrounding tabs, which the propagator does not read.
    package static func isTracestate(_ value: String) -> Bool {
        let members = value.utf8.split(separator: comma, omittingEmptySubsequences: false)
        return members.count <= 32 && members.enumerated().allSatisfy { position, member in
            let member = position == 0 ? member[...] : member.drop { $0 == space }
            guard let sign = member.firstIndex(of: equals) else { return false }
            return isKey(Array(member[..<sign])) && isValue(Array(member[member.index(after: sign)...]))
        }
    }

    private static func isKey(_ key: [UInt8]) -> Bool {
        let parts = key.split(separator: at, omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (1...256).contains(key.count) && isLowerAlpha(key[0]) && key.allSatisfy(isKeyCharacter)
        case 2:
            let tenant = parts[0], system = parts[1]
            return (1...241).contains(tenant.count) && (1...14).contains(system.count)
                && (isLowerAlpha(tenant.first!) || isDigit(tenant.first!)) && isLowerAlpha(system.first!)
                && tenant.allSatisfy(isKeyCharacter) && system.allSatisfy(isKeyCharacter)
        default: return false
        }
    }

    private static func isValue(_ value: [UInt8]) -> Bool {
        (1...256).contains(value.count) && value.last != space
            && value.allSatisfy { $0 == space || ((0x21...0x7E).contains($0) && $0 != comma && $0 != equals) }
    }

    private static func isKeyCharacter(_ byte: UInt8) -> Bool {
        isLowerAlpha(byte) || isDigit(byte) || "_-*/".utf8.contains(byte)
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool { isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) }
    private static func isLowerAlpha(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static let dash = UInt8(ascii: "-"), zero = UInt8(ascii: "0"), at = UInt8(ascii: "@")
    private static let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), equals = UInt8(ascii: "=")
}
