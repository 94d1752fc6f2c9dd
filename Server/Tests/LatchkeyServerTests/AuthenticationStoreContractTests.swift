import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The authentication part of the storage contract, on every engine.
@Suite struct AuthenticationStoreContractTests {
    let now = Date(timeIntervalSince1970: 4_000_000)
    let limits = AttemptLimits(wallet: 3, device: 2)

    func open(_ store: any LatchkeyStore) async throws -> UserRecord {
        let user = UserRecord(id: SecureRandom.identifier(), issuer: "default", email: "u@x.io", emailNormalized: "u@x.io",
                              firstName: nil, lastName: nil, phone: nil, externalId: nil, passwordHash: "h", passcodeHash: "p",
                              emailVerified: false, createdAt: now, updatedAt: now)
        try await store.createUser(user, answers: [], tokens: [], messages: [])
        return user
    }

    /// The pending MFA question: the first choice stays until it is stale, invalid or cleared.
    @Test(arguments: TestEnvironment.engines)
    func thePendingMFAQuestionStaysUntilStaleInvalidOrCleared(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = try await open(store)
            let before = now.addingTimeInterval(-60)
            #expect(try await store.pendingMFAQuestion(userID: user.id) == nil)
            #expect(try await store.choosePendingMFAQuestion(userID: user.id, proposal: "A", staleBefore: before, invalid: nil, now: now) == "A")
            #expect(try await store.choosePendingMFAQuestion(userID: user.id, proposal: "B", staleBefore: before, invalid: nil, now: now) == "A")
            #expect(try await store.pendingMFAQuestion(userID: user.id)?.chosenAt == now)
            let later = now.addingTimeInterval(3600)
            #expect(try await store.choosePendingMFAQuestion(userID: user.id, proposal: "B", staleBefore: later, invalid: nil,
                                                             now: later) == "B", "a stale question is replaced")
            #expect(try await store.choosePendingMFAQuestion(userID: user.id, proposal: "C", staleBefore: before, invalid: "B",
                                                             now: later) == "C", "a question the user no longer has is replaced")
            try await store.clearPendingMFAQuestion(userID: user.id)
            #expect(try await store.pendingMFAQuestion(userID: user.id) == nil)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func reservationsFailuresAndSuccess(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = try await open(store)
            try await store.linkDevice(userID: user.id, deviceID: "d", deviceType: "phone", now: now)
            try await store.linkDevice(userID: user.id, deviceID: "d", deviceType: "phone", now: now)
            #expect(try await store.devices(userID: user.id).count == 1, "linking is idempotent")
            #expect(try await store.reserveAttempt(userID: user.id, deviceID: "d", limits: limits) == .reserved)
            #expect(try await store.recordFailure(userID: user.id, deviceID: "d", limits: limits, now: Date())
                    == FailureOutcome(walletDeactivated: false, deviceDeactivated: false))
            #expect(try await store.reserveAttempt(userID: user.id, deviceID: "d", limits: limits) == .reserved)
            #expect(try await store.reserveAttempt(userID: user.id, deviceID: "d", limits: limits) == .exhausted,
                    "the device has 2 attempts and both are taken")
            #expect(try await store.recordFailure(userID: user.id, deviceID: "d", limits: limits, now: Date())
                    == FailureOutcome(walletDeactivated: false, deviceDeactivated: true))
            #expect(try await store.reserveAttempt(userID: user.id, deviceID: "d", limits: limits) == .deviceLocked)
            #expect(try await store.user(id: user.id)?.failedAttempts == 2, "a refused device reservation leaves the wallet alone")
            #expect(try await store.reserveAttempt(userID: user.id, deviceID: nil, limits: limits) == .reserved)
            #expect(try await store.recordFailure(userID: user.id, deviceID: nil, limits: limits, now: Date()).walletDeactivated)
            #expect(try await store.reserveAttempt(userID: user.id, deviceID: nil, limits: limits) == .walletLocked)
            try await store.setUserStatus(userID: user.id, status: .active, now: Date())
            try await store.setDeviceStatus(userID: user.id, deviceID: "d", status: .active, now: Date())
            #expect(try await store.user(id: user.id)?.failedAttempts == 0)
            #expect(try await store.device(userID: user.id, deviceID: "d")?.failedAttempts == 0)
            _ = try await store.reserveAttempt(userID: user.id, deviceID: nil, limits: limits)
            _ = try await store.reserveAttempt(userID: user.id, deviceID: "d", limits: limits)
            try await store.releaseAttempt(userID: user.id, deviceID: "d")
            #expect(try await store.user(id: user.id)?.failedAttempts == 1, "only the released attempt is given back")
            #expect(try await store.device(userID: user.id, deviceID: "d")?.failedAttempts == 0)
            try await store.recordSuccess(userID: user.id, deviceID: "d", loginAt: nil,
                                          software: DeviceSoftware(deviceType: "iPad", applicationVersion: "26.11.0.3i", sdkVersion: "2.4.0"),
                                          languages: "de, en")
            #expect(try await store.user(id: user.id)?.lastLoginAt == nil)
            #expect(try await store.user(id: user.id)?.languages == "de, en", "a login records the customer's languages")
            try await store.recordSuccess(userID: user.id, deviceID: "d", loginAt: now, software: DeviceSoftware(applicationVersion: "26.12.0.1i"),
                                          languages: nil)
            #expect(try await store.user(id: user.id)?.languages == "de, en", "a login that names none keeps them")
            let upgraded = try #require(try await store.device(userID: user.id, deviceID: "d"))
            #expect(upgraded.applicationVersion == "26.12.0.1i" && upgraded.sdkVersion == "2.4.0" && upgraded.deviceType == "iPad",
                    "a login records what the device runs; what it does not say stays")
            #expect(try await store.user(id: user.id)?.failedAttempts == 0)
            #expect(try await store.user(id: user.id)?.lastLoginAt == now)
            try await store.setDeviceStatus(userID: user.id, deviceID: "d", status: .suspended, now: Date())
            #expect(try await store.reserveAttempt(userID: user.id, deviceID: "d", limits: limits) == .deviceSuspended)
            #expect(try await store.deviceOwner(deviceID: "d")?.userID == user.id)
            #expect(try await store.users(issuer: "default", limit: 10, offset: 0).map(\.id) == [user.id])
            #expect(try await store.users(issuer: "default", limit: 10, offset: 1).isEmpty)
            try await store.markEmailVerified(userID: user.id)
            try await store.markAppInstanceVerified(userID: user.id)
            let verified = try #require(try await store.user(id: user.id))
            #expect(verified.emailVerified && verified.appInstanceVerified)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func sessionsAndDeviceTokens(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = try await open(store)
            let session = SessionRecord(digest: "s1", userID: user.id, deviceID: "d", createdAt: now, lastSeenAt: now,
                                        expiresAt: now.addingTimeInterval(3600))
            try await store.createSession(session)
            try await store.createSession(SessionRecord(digest: "s2", userID: user.id, deviceID: "e", createdAt: now, lastSeenAt: now,
                                                        expiresAt: now.addingTimeInterval(3600)))
            #expect(try await store.touchSession(digest: "s1", now: now.addingTimeInterval(100), idle: 600)?.lastSeenAt
                    == now.addingTimeInterval(100))
            #expect(try await store.touchSession(digest: "s1", now: now.addingTimeInterval(800), idle: 600) == nil, "idle")
            #expect(try await store.touchSession(digest: "s2", now: now.addingTimeInterval(3600), idle: 7200) == nil, "absolute")
            try await store.createSession(SessionRecord(digest: "s3", userID: user.id, deviceID: "e", createdAt: now, lastSeenAt: now,
                                                        expiresAt: now.addingTimeInterval(3600)))
            try await store.revokeSessions(userID: user.id, except: "s3", deviceID: nil, now: now)
            #expect(try await store.touchSession(digest: "s3", now: now, idle: 600) != nil)
            #expect(try await store.revokeSession(digest: "s3", now: now))
            #expect(try await !store.revokeSession(digest: "s3", now: now))

            try await store.createDeviceToken(DeviceTokenRecord(digest: "t1", userID: user.id, deviceID: "d", createdAt: now,
                                                                expiresAt: now.addingTimeInterval(60)))
            #expect(try await store.deviceToken(digest: "t1")?.deviceID == "d")
            #expect(try await !store.revokeDeviceToken(digest: "t1", now: now.addingTimeInterval(61)), "already expired")
            #expect(try await store.revokeDeviceToken(digest: "t1", now: now))
            #expect(try await store.deviceToken(digest: "t1")?.revokedAt == now)

            try await store.createToken(TokenRecord(digest: "c1", purpose: .mfaChallenge, userID: user.id, deviceID: "d",
                                                    createdAt: now, expiresAt: now.addingTimeInterval(300), data: "Q?"))
            #expect(try await store.token(digest: "c1", purpose: .mfaChallenge, now: now)?.data == "Q?")
            #expect(try await store.consumeToken(digest: "c1", purpose: .mfaChallenge, now: now)?.data == "Q?")
            #expect(try await store.token(digest: "c1", purpose: .mfaChallenge, now: now) == nil)
        }
    }

    /// Registering a key links it, binds the session and keeps one live certificate per device;
    /// deactivating or unlinking the device revokes it, and a suspension does not. A device key is
    /// linked to one wallet.
    @Test(arguments: TestEnvironment.engines)
    func certificatesFollowTheirDevice(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = try await open(store)
            try await store.linkDevice(userID: user.id, deviceID: "jkt:abc", deviceType: nil, label: "phone", now: now)
            func certificate(_ serial: String, at offset: TimeInterval) -> DeviceCertificateRecord {
                DeviceCertificateRecord(serial: serial, userID: user.id, deviceID: "jkt:abc", publicKey: "k", certificatePEM: "pem",
                                        createdAt: now.addingTimeInterval(offset), expiresAt: now.addingTimeInterval(86_400))
            }
            func live() async throws -> [String] {
                try await store.deviceCertificates(userID: user.id, deviceID: "jkt:abc").filter { $0.revokedAt == nil }.map(\.serial)
            }
            let session = SessionRecord(digest: "s-limited", userID: user.id, deviceID: nil, createdAt: now, lastSeenAt: now,
                                        expiresAt: now.addingTimeInterval(3600), limited: true)
            try await store.createSession(session)
            func register(_ serial: String, at offset: TimeInterval) async throws {
                try await store.registerDeviceKey(certificate(serial, at: offset), label: "phone", deviceType: nil,
                                                  sessionDigest: session.digest, keyThumbprint: "abc")
            }
            try await register("01", at: 0)
            let bound = try #require(try await store.touchSession(digest: session.digest, now: now, idle: 3600))
            #expect(bound.keyThumbprint == "abc" && bound.deviceID == "jkt:abc" && !bound.limited,
                    "the key registration binds the session and lifts its limits")
            try await register("02", at: 1)
            #expect(try await live() == ["02"], "registering again replaces the certificate")
            #expect(try await store.deviceCertificate(serial: "01")?.revokedAt != nil)
            #expect(try await store.deviceCertificate(serial: "02")?.revokedAt == nil)
            #expect(try await store.deviceCertificate(serial: "99") == nil)
            try await store.setDeviceStatus(userID: user.id, deviceID: "jkt:abc", status: .suspended, now: now)
            #expect(try await live() == ["02"])
            try await store.setDeviceStatus(userID: user.id, deviceID: "jkt:abc", status: .deactivated, now: now)
            #expect(try await live().isEmpty)
            try await store.setDeviceStatus(userID: user.id, deviceID: "jkt:abc", status: .active, now: now)
            try await register("03", at: 2)
            #expect(try await store.unlinkDevice(userID: user.id, deviceID: "jkt:abc", now: now))
            #expect(try await live().isEmpty)
            #expect(try await store.devices(userID: user.id).isEmpty)
            #expect(try await !store.unlinkDevice(userID: user.id, deviceID: "jkt:abc", now: now))

            let other = UserRecord(id: SecureRandom.identifier(), issuer: "default", email: "o@x.io", emailNormalized: "o@x.io",
                                   firstName: nil, lastName: nil, phone: nil, externalId: nil, passwordHash: "h", passcodeHash: "p",
                                   emailVerified: false, createdAt: now, updatedAt: now)
            try await store.createUser(other, answers: [], tokens: [], messages: [])
            try await store.linkDevice(userID: user.id, deviceID: "jkt:key", deviceType: nil, now: now)
            await #expect(throws: StoreError.deviceKeyInUse) {
                try await store.linkDevice(userID: other.id, deviceID: "jkt:key", deviceType: nil, now: now)
            }
            let otherSession = SessionRecord(digest: "s-other", userID: other.id, deviceID: nil, createdAt: now, lastSeenAt: now,
                                             expiresAt: now.addingTimeInterval(3600), limited: true)
            try await store.createSession(otherSession)
            await #expect(throws: StoreError.deviceKeyInUse, "registering another wallet's key writes nothing") {
                try await store.registerDeviceKey(
                    DeviceCertificateRecord(serial: "04", userID: other.id, deviceID: "jkt:key", publicKey: "k", certificatePEM: "pem",
                                            createdAt: now, expiresAt: now.addingTimeInterval(86_400)),
                    label: nil, deviceType: nil, sessionDigest: otherSession.digest, keyThumbprint: "key")
            }
            #expect(try await store.deviceCertificate(serial: "04") == nil)
            #expect(try await store.touchSession(digest: otherSession.digest, now: now, idle: 3600)?.limited == true)
            try await store.linkDevice(userID: other.id, deviceID: "label-1", deviceType: nil, now: now)
            try await store.linkDevice(userID: user.id, deviceID: "label-1", deviceType: nil, now: now)
        }
    }
}
