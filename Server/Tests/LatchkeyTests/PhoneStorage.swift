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
    /// What a failing read throws: by default the device is locked.
    var readError: any Error = Locked()
    /// The next read of these keys answers `nil` although a value is there.
    var spuriousMisses: Set<String> = []
    /// Writes and deletes of these keys fail.
    var failingWrites: Set<String> = []
    /// Every read waits this long (so concurrent callers interleave).
    var readDelay: Duration = .zero
    /// Every write and delete waits this long before it happens (a Keychain busy elsewhere).
    var writeDelay: Duration = .zero
    /// The first read of this key takes the value stored then and answers it only at `release()`
    /// (a slow read that writes made meanwhile overtake).
    private var heldKey: String?
    private var held: CheckedContinuation<Void, Never>?
    private var released = false
    private(set) var adds = 0

    init(_ values: [String: Data] = [:]) { self.values = values }

    /// A read refused because the device is locked (a Keychain's errSecInteractionNotAllowed).
    struct Locked: CredentialStorageError, CustomStringConvertible {
        var isDeviceLocked: Bool { true }
        var description: String { "The storage cannot be read: the device is locked." }
    }

    func configure(_ change: @Sendable (isolated PhoneStorage) -> Void) { change(self) }

    func hold(firstReadOf key: String) { heldKey = key }

    func release() {
        released = true
        held?.resume()
        held = nil
    }

    func data(for key: String) async throws -> Data? {
        if readDelay > .zero { try await Task.sleep(for: readDelay) }
        let value = values[key]
        if key == heldKey, !released {
            heldKey = nil
            await withCheckedContinuation { held = $0 }
        }
        if failingReads > 0 {
            failingReads -= 1
            throw readError
        }
        if spuriousMisses.remove(key) != nil { return nil }
        return value
    }

    func set(_ data: Data?, for key: String) async throws {
        if writeDelay > .zero { try await Task.sleep(for: writeDelay) }
        if failingWrites.contains(key) { throw CocoaError(.fileWriteNoPermission) }
        values[key] = data
    }

    func add(_ data: Data, for key: String) async throws -> Data {
        adds += 1
        if let existing = values[key] { return existing }
        try await set(data, for: key)
        return data
    }

    /// The stored session item, as the SDK writes it.
    func session() -> (token: String, customerUri: String, revoking: Bool)? {
        struct Stored: Decodable { let token: String; let customerUri: String; let revoking: Bool? }
        guard let data = values["latchkey.session"], let stored = try? JSONDecoder().decode(Stored.self, from: data) else { return nil }
        return (stored.token, stored.customerUri, stored.revoking ?? false)
    }
}

/// The states a client publishes, as a view model following its stream would see them.
final class StateLog: Sendable {
    private let states = Mutex<[AuthenticationState]>([])
    func append(_ state: AuthenticationState) { states.withLock { $0.append(state) } }
    var all: [AuthenticationState] { states.withLock { $0 } }

    /// Follows `client`'s stream until the returned task is cancelled.
    static func following(_ client: LatchkeyClient) async -> (StateLog, Task<Void, Never>) {
        let log = StateLog()
        let states = await client.authentication.authenticationStateChanges()
        return (log, Task { for await state in states { log.append(state) } })
    }
}

/// Whether `condition` holds within `seconds`, checked every 20 ms.
func eventually(within seconds: Int = 5, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// The log entries the SDK hands the app's handler.
final class LogCollector: LatchkeyLogHandler {
    private let entries = Mutex<[LatchkeyLogEntry]>([])
    func log(_ entry: LatchkeyLogEntry) { entries.withLock { $0.append(entry) } }
    var all: [LatchkeyLogEntry] { entries.withLock { $0 } }
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
