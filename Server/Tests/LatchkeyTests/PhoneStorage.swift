import Foundation
import HTTPTypes
import Latchkey
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization

/// A `CredentialStorage` that misbehaves on demand the way a phone's Keychain does: reads refused
/// before the first unlock, a read that wrongly answers "nothing", writes refused, a read that
/// takes its time.
actor PhoneStorage: CredentialStorage {
    private(set) var values: [String: Data]
    /// The next this many reads fail (locked before the first unlock).
    var failingReads = 0
    /// The next read of these keys answers `nil` although a value is there.
    var spuriousMisses: Set<String> = []
    /// Writes and deletes of these keys fail.
    var failingWrites: Set<String> = []
    /// Every read waits this long (so concurrent callers interleave).
    var readDelay: Duration = .zero
    /// The first read of this key waits until `release()`.
    private var heldKey: String?
    private var held: CheckedContinuation<Void, Never>?
    private var released = false
    private(set) var adds = 0

    init(_ values: [String: Data] = [:]) { self.values = values }

    func configure(_ change: @Sendable (isolated PhoneStorage) -> Void) { change(self) }

    func hold(firstReadOf key: String) { heldKey = key }

    func release() {
        released = true
        held?.resume()
        held = nil
    }

    func data(for key: String) async throws -> Data? {
        if readDelay > .zero { try await Task.sleep(for: readDelay) }
        if key == heldKey, !released {
            heldKey = nil
            await withCheckedContinuation { held = $0 }
        }
        if failingReads > 0 {
            failingReads -= 1
            throw CocoaError(.fileReadNoPermission)
        }
        if spuriousMisses.remove(key) != nil { return nil }
        return values[key]
    }

    func set(_ data: Data?, for key: String) throws {
        if failingWrites.contains(key) { throw CocoaError(.fileWriteNoPermission) }
        values[key] = data
    }

    func add(_ data: Data, for key: String) throws -> Data {
        adds += 1
        if let existing = values[key] { return existing }
        try set(data, for: key)
        return data
    }

    /// The stored session item, as the SDK writes it.
    func session() -> (token: String, customerUri: String, revoking: Bool)? {
        struct Stored: Decodable { let token: String; let customerUri: String; let revoking: Bool? }
        guard let data = values["latchkey.session"], let stored = try? JSONDecoder().decode(Stored.self, from: data) else { return nil }
        return (stored.token, stored.customerUri, stored.revoking ?? false)
    }
}

/// A transport that can lose the network, as a phone in a tunnel does.
final class FlakyNetwork: ClientTransport {
    let inner = URLSessionTransport()
    let offline = Atomic<Bool>(false)

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        if offline.load(ordering: .relaxed) { throw URLError(.notConnectedToInternet) }
        return try await inner.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}

/// A clock that can be set off by minutes while a test runs.
final class SettableClock: Sendable {
    private let offset = Atomic<Int>(0)
    func set(offBy seconds: Int) { offset.store(seconds, ordering: .relaxed) }
    var now: @Sendable () -> Date { { [self] in Date().addingTimeInterval(TimeInterval(offset.load(ordering: .relaxed))) } }
}
