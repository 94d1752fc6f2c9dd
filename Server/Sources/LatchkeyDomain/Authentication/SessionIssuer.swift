import Foundation
import LatchkeyCore

/// Opens sessions: a random token whose digest is stored, the issuer's absolute lifetime, the
/// failure counts reset and the login time recorded. Every login path ends here.
public struct SessionIssuer: Sendable {
    /// Sessions, and the counters a completed login resets.
    public typealias Store = AttemptStore & SessionStore
    package let store: any Store
    package let issuer: IssuerSettings
    package let audit: AuditRecorder
    package let now: @Sendable () -> Date

    /// A new session token and its record (not stored yet), living the issuer's absolute timeout,
    /// bound to the device key the request proved (`provenKey`), if any. A `limited`
    /// session (a phone sign-up's) works on Kratos's routes only until its device key is registered.
    /// `knowledgeFactor`: the login checked a step-up factor now (`FactorRules.privileged`), which
    /// makes the session privileged for a while (`Principal.requirePrivileged`).
    package func newSession(userID: String, deviceID: String?, provenKey: String?, at time: Date, limited: Bool = false,
                    knowledgeFactor: Bool = false) -> (token: String, session: SessionRecord) {
        let token = SecureRandom.token()
        return (token, SessionRecord(digest: SecureRandom.digest(token), userID: userID, deviceID: deviceID, createdAt: time,
                                     lastSeenAt: time,
                                     expiresAt: time.addingTimeInterval(TimeInterval(issuer.sessions.absoluteTimeoutSeconds)),
                                     keyThumbprint: provenKey, limited: limited,
                                     factorCheckedAt: knowledgeFactor ? time : nil))
    }

    /// Completes a login: resets the failure counts, records the login time and the request's
    /// languages (when it names others than the wallet has), stores a new session
    /// on the device (bound to the key it proved). `method` names the login in the audit trail and,
    /// by the issuer's step-up factors, decides whether the session is privileged.
    package func open(_ user: UserRecord, device: DeviceContext, method: LoginMethod, caller: Caller) async throws -> (token: String, session: SessionRecord) {
        let store = self.store.recording(into: caller.audit)
        let time = now()
        let deviceID = device.deviceID
        let opened = newSession(userID: user.id, deviceID: deviceID, provenKey: device.provenKey, at: time,
                                knowledgeFactor: FactorRules(issuer.factors).privileged(method: method))
        audit(.loginSucceeded, user: user.id, deviceID: deviceID, details: ["method": method.rawValue], for: caller)
        // The customer's languages change with the app's settings: recorded when the request
        // names others than the wallet has, in the login's one write.
        let languages = caller.client.languages.headerValue.flatMap { $0 == user.languages ? nil : $0 }
        try await store.recordSuccess(userID: user.id, deviceID: deviceID, loginAt: time, software: device.software, languages: languages)
        try await store.createSession(opened.session)
        return opened
    }

    /// A new session on the device, with the attributes the spec mentions; records the login time.
    package func start(_ user: UserRecord, device: DeviceContext, method: LoginMethod, caller: Caller) async throws -> LoginOutcome {
        let opened = try await open(user, device: device, method: method, caller: caller)
        return outcome(OpenedSession(token: opened.token, session: opened.session, user: user))
    }

    /// The wallet API's answer for an opened session, with the attributes the spec mentions (of
    /// the wallet as read before the login: `lastLogin` is the previous one).
    package func outcome(_ opened: OpenedSession) -> LoginOutcome {
        let (token, user) = (opened.token, opened.user)
        var attributes: [String: String] = [:]
        if user.passwordHash != nil { attributes["lastPasswordUpdate"] = UTCTimestamp.rfc3339(user.passwordUpdatedAt ?? user.createdAt) }
        if let last = user.lastLoginAt { attributes["lastLogin"] = UTCTimestamp.rfc3339(last) }
        if let expiry = issuer.passwordExpiry(of: user) { attributes["passwordExpiresAt"] = UTCTimestamp.rfc3339(expiry) }
        return .authenticated(sessionToken: token, customerUri: EnrollmentService.customerURI(user.id),
                              additionalAttributes: attributes)
    }
}
