import Foundation

/// The keys a configuration file may set, read off the one declaration of the settings — their
/// `Codable` structure — by encoding the defaults with an encoder that records key paths instead
/// of writing values. Unlike the encoded defaults, where a setting whose value is nil
/// (`http.metricsToken`) is simply absent, the recorder sees every optional setting too, and it
/// samples one element of each list of objects that is empty by default, so the keys of those
/// elements are known as well. A new setting is accepted the moment it is declared.
package struct SettingKeys: Sendable {
    /// What a key path holds.
    package enum Shape: Sendable, Equatable { case value, mapping, list }

    /// Every key path and what it holds: `issuer.otp.length`; a list's elements as
    /// `issuer.mfa.questions[]` and their keys as `issuer.mfa.questions[].mfaQuestion`.
    package let shapes: [String: Shape]

    /// The keys of `ServerConfiguration`.
    package static let server = SettingKeys(recording: ServerConfiguration())

    package init(recording settings: some Encodable) {
        let recorder = KeyRecorder()
        // The recording encoder throws nothing of its own; a type whose encoding throws would
        // only leave its keys out, which the tests of the documented keys would show.
        try? settings.encode(to: RecordingEncoder(path: "", recorder: recorder))
        shapes = recorder.shapes
    }
}

/// A list element the key recorder can sample when a list of them is empty by default (or an
/// optional one is nil), so that the keys of its elements are accepted.
package protocol SettingSample: Encodable {
    static var settingSample: Self { get }
}

extension Array: SettingSample where Element: SettingSample {
    package static var settingSample: [Element] { [Element.settingSample] }
}

extension MFASettings.Question: SettingSample {
    package static var settingSample: Self { Self("?") }
}

extension IdentityProviderSettings: SettingSample {
    package static var settingSample: Self {
        Self(id: "", issuer: "", clientId: "", clientSecret: "", redirectUri: "", timeoutSeconds: 5)
    }
}

extension PreviousSealKey: SettingSample {
    package static var settingSample: Self { Self(file: "", until: "") }
}

/// Collects the key paths one encoding passes through; a mapping or list wins over a plain value
/// at the same path (a type may encode itself through a single-value container first).
private final class KeyRecorder {
    var shapes: [String: SettingKeys.Shape] = [:]

    func record(_ path: String, _ shape: SettingKeys.Shape) {
        guard !path.isEmpty, shapes[path] == nil || shape != .value else { return }
        shapes[path] = shape
    }
}

private struct RecordingEncoder: Encoder {
    let path: String
    let recorder: KeyRecorder
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        recorder.record(path, .mapping)
        return KeyedEncodingContainer(KeyedRecorder(path: path, recorder: recorder))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        recorder.record(path, .list)
        return ValueRecorder(path: path + "[]", recorder: recorder)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ValueRecorder(path: path, recorder: recorder) }

    /// Records `value`'s keys at this path: a sample's when the value is nil or an empty list
    /// of samplable elements, otherwise the value's own.
    func record<T: Encodable>(_ value: T?) throws {
        let empty = (value as? any Collection)?.isEmpty ?? (value == nil)
        if empty, let sample = T.self as? any SettingSample.Type {
            try sample.settingSample.encode(to: self)
        } else if let value {
            try value.encode(to: self)
        } else {
            recorder.record(path, .value)
        }
    }
}

/// A mapping's keys; `encodeIfPresent` records its key whether or not the value is nil.
private struct KeyedRecorder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let path: String
    let recorder: KeyRecorder
    var codingPath: [any CodingKey] { [] }

    private func child(_ key: Key) -> RecordingEncoder {
        RecordingEncoder(path: path.isEmpty ? key.stringValue : path + "." + key.stringValue, recorder: recorder)
    }
    private func value(_ key: Key) { recorder.record(child(key).path, .value) }

    mutating func encodeNil(forKey key: Key) { value(key) }
    mutating func encode(_: Bool, forKey key: Key) { value(key) }
    mutating func encode(_: String, forKey key: Key) { value(key) }
    mutating func encode(_: Double, forKey key: Key) { value(key) }
    mutating func encode(_: Float, forKey key: Key) { value(key) }
    mutating func encode(_: Int, forKey key: Key) { value(key) }
    mutating func encode(_: Int8, forKey key: Key) { value(key) }
    mutating func encode(_: Int16, forKey key: Key) { value(key) }
    mutating func encode(_: Int32, forKey key: Key) { value(key) }
    mutating func encode(_: Int64, forKey key: Key) { value(key) }
    mutating func encode(_: UInt, forKey key: Key) { value(key) }
    mutating func encode(_: UInt8, forKey key: Key) { value(key) }
    mutating func encode(_: UInt16, forKey key: Key) { value(key) }
    mutating func encode(_: UInt32, forKey key: Key) { value(key) }
    mutating func encode(_: UInt64, forKey key: Key) { value(key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try child(key).record(value) }

    mutating func encodeIfPresent(_: Bool?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: String?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: Double?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: Float?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: Int?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: Int8?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: Int16?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: Int32?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: Int64?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: UInt?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: UInt8?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: UInt16?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: UInt32?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent(_: UInt64?, forKey key: Key) { value(key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try child(key).record(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { child(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { RecordingEncoder(path: path, recorder: recorder) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

/// A plain value, or a list's elements (all recorded at the path `list[]`).
private struct ValueRecorder: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let path: String
    let recorder: KeyRecorder
    var codingPath: [any CodingKey] { [] }
    var count = 0

    private var encoder: RecordingEncoder { RecordingEncoder(path: path, recorder: recorder) }
    private mutating func value() {
        recorder.record(path, .value)
        count += 1
    }

    mutating func encodeNil() { value() }
    mutating func encode(_: Bool) { value() }
    mutating func encode(_: String) { value() }
    mutating func encode(_: Double) { value() }
    mutating func encode(_: Float) { value() }
    mutating func encode(_: Int) { value() }
    mutating func encode(_: Int8) { value() }
    mutating func encode(_: Int16) { value() }
    mutating func encode(_: Int32) { value() }
    mutating func encode(_: Int64) { value() }
    mutating func encode(_: UInt) { value() }
    mutating func encode(_: UInt8) { value() }
    mutating func encode(_: UInt16) { value() }
    mutating func encode(_: UInt32) { value() }
    mutating func encode(_: UInt64) { value() }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.record(value)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        count += 1
        return encoder.container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return encoder.unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { encoder }
}
