import Foundation

/// Converts between a generated wire type and a domain type with the same JSON shape, so the
/// hand-written layers on both sides speak domain types while the wire stays the generated one.
public enum WireConversion {
    /// `value` re-read as `T` through its JSON form.
    public static func convert<T: Decodable>(_ value: some Encodable, to type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }
}
