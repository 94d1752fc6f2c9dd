import Foundation

/// The session as one stored item: the token and the customer it belongs to are written together,
/// so no launch finds one without the other.
struct StoredSession: Codable, Equatable, Sendable {
    static let key = "latchkey.session"
    /// Where earlier versions kept the customer URI, beside a bare token under `key`.
    static let legacyCustomerKey = "latchkey.customerUri"

    var token: String
    var customerUri: String
    /// Signed out on this device; the server has not confirmed the revocation yet.
    var revoking = false

    func encoded() throws -> Data { try JSONEncoder().encode(self) }
}

/// The device token and its expiry as one stored item.
struct StoredDeviceToken: Codable, Equatable, Sendable {
    static let key = "latchkey.deviceToken"
    /// Where earlier versions kept the expiry (seconds since 1970, as text).
    static let legacyExpiryKey = "latchkey.deviceTokenExpiresAt"

    var token: String
    var expiresAt: Date?
}

extension SessionVault {
    /// The stored session. The two items of earlier versions (a bare token, the customer URI
    /// beside it) are read and rewritten as one; a token without its customer is no session.
    func storedSession() async throws -> StoredSession? {
        guard let data = try await storage.data(for: StoredSession.key) else { return nil }
        if let session = try? JSONDecoder().decode(StoredSession.self, from: data) { return session }
        guard let customer = try await storage.data(for: StoredSession.legacyCustomerKey) else { return nil }
        let session = StoredSession(token: String(decoding: data, as: UTF8.self), customerUri: String(decoding: customer, as: UTF8.self))
        // Best effort: if the rewrite fails, the next launch reads the old items again.
        if (try? await storage.set(try session.encoded(), for: StoredSession.key)) != nil {
            try? await storage.set(nil, for: StoredSession.legacyCustomerKey)
        }
        return session
    }

    /// A first launch after an installation: the earlier installation's session and device token
    /// go (the device key stays: `ReinstallDetection`).
    func forgetEarlierInstallation() async throws {
        for key in [StoredSession.key, StoredSession.legacyCustomerKey, StoredDeviceToken.key, StoredDeviceToken.legacyExpiryKey] {
            try await storage.set(nil, for: key)
        }
    }

    /// Deletes the stored session only while it still holds `token`: the storage may be shared
    /// with other processes of the app (an extension, the app itself), which may have stored a
    /// newer session since this one read it. Answers that newer session (unless it is one being
    /// revoked). A read or delete that fails leaves the item: the server refuses it again later.
    func dropStored(ifToken token: String) async -> StoredSession? {
        guard let data = try? await storage.data(for: StoredSession.key) else { return nil }
        let stored = try? JSONDecoder().decode(StoredSession.self, from: data)
        // Earlier versions stored the bare token.
        guard (stored?.token ?? String(decoding: data, as: UTF8.self)) == token else {
            return stored.flatMap { $0.revoking ? nil : $0 }
        }
        _ = try? await storage.removeValue(for: StoredSession.key, ifEqualTo: data)
        return nil
    }

    /// The stored device token, read from one item or the two of earlier versions.
    /// - Throws: the storage's error (a Keychain locked before the first unlock): whether a token
    ///   is stored is then not known.
    func deviceToken() async throws -> StoredDeviceToken? {
        guard let data = try await storage.data(for: StoredDeviceToken.key) else { return nil }
        if let stored = try? JSONDecoder().decode(StoredDeviceToken.self, from: data) { return stored }
        let expiry = (try? await storage.data(for: StoredDeviceToken.legacyExpiryKey))
            .flatMap { $0.flatMap { Double(String(decoding: $0, as: UTF8.self)) } }
        return StoredDeviceToken(token: String(decoding: data, as: UTF8.self),
                                 expiresAt: expiry.map { Date(timeIntervalSince1970: $0) })
    }

    /// Keeps the device token and its expiry as one item (`nil` forgets it).
    /// - Throws: the storage's error.
    func setDeviceToken(_ token: String?, expiresAt: Date? = nil) async throws {
        let stored = try token.map { try JSONEncoder().encode(StoredDeviceToken(token: $0, expiresAt: expiresAt)) }
        try await storage.set(stored, for: StoredDeviceToken.key)
        try? await storage.set(nil, for: StoredDeviceToken.legacyExpiryKey)
    }
}
