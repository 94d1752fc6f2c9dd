import Crypto
import Foundation
import LatchkeyCore

/// The operator console's accounts: made from the command line with a one-time setup link, set
/// up with a password and an authenticator (TOTP), signed in with both. Knows no HTTP: the
/// console's pages (`LatchkeyAdminHTTP`) call it and keep its session token in a cookie.
public struct ConsoleService: Sendable {
    public typealias Store = ConsoleStore & AuditStore
    package let store: any Store
    package let hasher: SecretHasher
    /// Derives the authenticator secret a setup link shows (so no secret is stored before it is confirmed).
    private let setupKey: SymmetricKey
    package let issuerName: String
    package let now: @Sendable () -> Date

    /// A setup link works for a day.
    public static let setupLifetime: TimeInterval = 86_400
    /// A sign-in ends after 15 minutes without a page, and after 8 hours whatever happens.
    public static let idleTimeout: TimeInterval = 15 * 60
    public static let absoluteTimeout: TimeInterval = 8 * 3600
    /// Five wrong sign-ins (password or code) from one client address, each within `failureWindow`
    /// of the one before, lock that address out of the account for `lockDuration`.
    public static let failureThreshold = 5
    public static let lockDuration: TimeInterval = 15 * 60
    /// A quarter of an hour without a failure from an address forgets its failures.
    public static let failureWindow: TimeInterval = 15 * 60
    /// The three above, as the store counts them.
    public static let lockout = OperatorLockoutPolicy(threshold: failureThreshold, window: failureWindow, lockFor: lockDuration)
    public static let passwordLengths = 12...128
    /// The count as attempts are booked before they are judged: the attempt after the
    /// threshold's failures finds the address locked, so `failureThreshold` guesses are judged.
    static let booking = OperatorLockoutPolicy(threshold: failureThreshold + 1, window: failureWindow, lockFor: lockDuration)
    /// The failure count kept for an account across addresses: sign-ins with the right password
    /// and a wrong, old or used code (not an address, so no client can share it).
    static let passwordHolders = "password holders"

    public init(store: any Store, hasher: SecretHasher, pepper: SymmetricKey, issuerName: String,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.hasher = hasher
        self.setupKey = PepperPurpose.consoleTOTPSetup.key(from: pepper)
        self.issuerName = issuerName
        self.now = now
    }

    /// A new operator and its setup link's token (shown once). Throws `OperatorError` for a
    /// malformed address or one that has an operator already. Needs no pepper: the command line
    /// makes operators without the server's secrets.
    public static func createOperator(email: String, role: OperatorRole, store: any Store,
                                      now: Date = Date()) async throws -> (account: OperatorAccount, setupToken: String) {
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        guard EmailAddress.isValid(trimmed) else { throw OperatorError.invalidOperatorRequest("The email address is not valid.") }
        let token = SecureRandom.token()
        let account = OperatorAccount(id: SecureRandom.identifier(), email: EmailAddress.normalized(trimmed), role: role,
                                      setupDigest: SecureRandom.digest(token), setupExpiresAt: now.addingTimeInterval(setupLifetime),
                                      createdAt: now)
        try await AuditTrail.run(actor: .operator, store: store) { trail in
            trail.record(.operatorCommand, user: nil, details: OperatorCommand.operatorCreated(id: account.id, role: role).details
                .merging(["operatorAccount": account.id, "operator": account.email]) { $1 }, at: now)
            try await store.recording(into: trail).createOperatorAccount(account)
        }
        return (account, token)
    }

    /// A new setup link for an operator who lost the authenticator or the password: the old
    /// password and authenticator stop working, and its sessions end. Throws `OperatorError.unknownOperator`.
    public static func resetOperator(email: String, store: any Store, now: Date = Date()) async throws -> String {
        guard let account = try await store.operatorAccount(email: EmailAddress.normalized(email)) else {
            throw OperatorError.invalidOperatorRequest("No operator with email \(email).")
        }
        let token = SecureRandom.token()
        try await AuditTrail.run(actor: .operator, store: store) { trail in
            trail.record(.operatorCommand, user: nil, details: OperatorCommand.operatorReset(id: account.id).details
                .merging(["operatorAccount": account.id, "operator": account.email]) { $1 }, at: now)
            try await store.recording(into: trail).resetOperatorSetup(id: account.id, setupDigest: SecureRandom.digest(token),
                                                                      expiresAt: now.addingTimeInterval(setupLifetime))
        }
        return token
    }

    /// The operator a live setup link is for, and the authenticator it sets up; nil for a link that
    /// is unknown, used or expired.
    public func openSetup(token: String) async throws -> (account: OperatorAccount, totp: TOTPCheck)? {
        guard let account = try await setupAccount(token) else { return nil }
        return (account, setupSecret(token))
    }

    /// How a setup ended.
    public enum SetupOutcome: Sendable, Equatable {
        case done(sessionToken: String)
        case invalidLink
        case refused(field: String, message: String)
    }

    /// Sets the password and the authenticator (proven by a code of it) and signs the operator in.
    public func completeSetup(token: String, password: String, confirm: String, code: String, clientIP: String?) async throws -> SetupOutcome {
        guard let account = try await setupAccount(token) else { return .invalidLink }
        guard Self.passwordLengths.contains(password.count) else {
            return .refused(field: "password", message: "The password must be \(Self.passwordLengths.lowerBound) to \(Self.passwordLengths.upperBound) characters.")
        }
        guard password == confirm else { return .refused(field: "confirm", message: "The two passwords differ.") }
        let totp = setupSecret(token)
        guard let step = totp.matchingStep(code, now: now()) else {
            return .refused(field: "code", message: "That code is not the authenticator's current one; check the phone's clock and try the next.")
        }
        let hash = try await hasher.hash(password)
        let sealed = try hasher.profileFieldCipher.seal(totp.secret)
        let done = try await audited(.consoleSetup, account: account, clientIP: clientIP) { store in
            try await store.completeOperatorSetup(id: account.id, setupDigest: SecureRandom.digest(token), passwordHash: hash,
                                                  totpSecretSealed: sealed, now: now())
        }
        guard done, try await store.acceptOperatorTOTPStep(id: account.id, step: step) else { return .invalidLink }
        return .done(sessionToken: try await startSession(for: account))
    }

    /// How a sign-in ended. `refused` says nothing of which part was wrong, nor whether the account exists.
    public enum SignIn: Sendable, Equatable {
        case signedIn(sessionToken: String, account: OperatorAccount)
        case refused
    }

    /// Signs an operator in with its password and a code of its authenticator. A wrong password,
    /// a wrong, old or already used code, an unknown address or a locked one are all `refused`
    /// after the same hash work (one password hash, off the event loop through the hash gate), so
    /// neither the answer nor its time tells whether the operator exists or is locked. Each attempt
    /// counts toward a lock of the client address it came from only, before it is judged (given
    /// back when it succeeds): a stranger cannot lock the owner out from elsewhere, and attempts
    /// sent together are bounded like attempts in a row. Wrong codes with the right password also
    /// count for the account from every address. Every attempt is an event. Throws what the store
    /// or the hasher throws.
    public func signIn(email: String, password: String, code: String, clientIP: String?) async throws -> SignIn {
        let time = now(), address = clientIP ?? "unknown"
        guard let account = try await store.operatorAccount(email: EmailAddress.normalized(email.trimmingCharacters(in: .whitespaces))),
              let hash = account.passwordHash, let sealed = account.totpSecretSealed, account.disabledAt == nil else {
            try await hasher.burn(password)
            try await record(.consoleSignIn, account: nil, outcome: .failure, reason: "unknown operator", clientIP: clientIP)
            return .refused
        }
        // Each attempt is counted as a failure before it is judged (and given back when it
        // succeeds), so attempts sent together cannot all pass the lock before any has counted.
        var lockedBefore = try await store.operatorLockout(id: account.id, clientIP: address, now: time)
        if lockedBefore == nil { lockedBefore = try await store.operatorLockout(id: account.id, clientIP: Self.passwordHolders, now: time) }
        let lockedNow = lockedBefore == nil
            ? try await store.recordOperatorFailure(id: account.id, clientIP: address, policy: Self.booking, now: time) : nil
        // Hashed even while locked (and the answer thrown away): a refusal costs what any other does.
        let passwordRight = try await hasher.verify(password, against: hash)
        if lockedBefore != nil || lockedNow != nil {
            try await record(.consoleSignIn, account: account, outcome: .failure, reason: "locked", clientIP: clientIP)
            return .refused
        }
        let step = TOTPCheck(secret: try hasher.profileFieldCipher.open(sealed)).matchingStep(code, now: time)
        // The step is spent only with the right password, so a guesser cannot burn the owner's codes.
        let fresh = if passwordRight, let step { try await store.acceptOperatorTOTPStep(id: account.id, step: step) } else { false }
        guard passwordRight, fresh else {
            // Wrong codes with the right password count for the account from every address: only
            // the password's holder can make them, and an address of its own each would not bound them.
            let locked = passwordRight
                ? try await store.recordOperatorFailure(id: account.id, clientIP: Self.passwordHolders, policy: Self.lockout, now: time) : nil
            let reason = !passwordRight ? "wrong password" : step == nil ? "wrong code" : "code already used"
            try await record(.consoleSignIn, account: account, outcome: .failure,
                             reason: locked == nil ? reason : "\(reason); locked", clientIP: clientIP)
            return .refused
        }
        try await store.clearOperatorFailures(id: account.id, clientIP: Self.passwordHolders)
        try await store.clearOperatorFailures(id: account.id, clientIP: address)
        try await record(.consoleSignIn, account: account, outcome: .success, reason: nil, clientIP: clientIP)
        return .signedIn(sessionToken: try await startSession(for: account), account: account)
    }

    /// The operator of a live session token, its session's last use moved on; nil otherwise.
    public func session(token: String) async throws -> (session: ConsoleSession, account: OperatorAccount)? {
        guard token.utf8.count <= 100,
              let session = try await store.consoleSession(digest: SecureRandom.digest(token), now: now(), idle: Self.idleTimeout),
              let account = try await store.operatorAccount(id: session.operatorID), account.disabledAt == nil, account.isSetUp else {
            return nil
        }
        return (session, account)
    }

    /// Ends a sign-in.
    public func signOut(token: String, account: OperatorAccount, clientIP: String?) async throws {
        try await store.deleteConsoleSession(digest: SecureRandom.digest(token))
        try await record(.consoleSignOut, account: account, outcome: .success, reason: nil, clientIP: clientIP)
    }

    /// Every operator of the console.
    public func operators() async throws -> [OperatorAccount] { try await store.operatorAccounts() }

    private func startSession(for account: OperatorAccount) async throws -> String {
        let token = SecureRandom.token(), time = now()
        try await store.createConsoleSession(ConsoleSession(digest: SecureRandom.digest(token), operatorID: account.id, createdAt: time,
                                                            lastSeenAt: time, expiresAt: time.addingTimeInterval(Self.absoluteTimeout)))
        return token
    }

    private func setupAccount(_ token: String) async throws -> OperatorAccount? {
        guard token.utf8.count <= 100 else { return nil }
        let digest = SecureRandom.digest(token)
        // The link names no operator: the operators are few, and the digest is compared in constant time.
        return try await store.operatorAccounts().first { account in
            guard let stored = account.setupDigest, let expires = account.setupExpiresAt, expires > now() else { return false }
            return ConstantTime.equal(Data(stored.utf8), Data(digest.utf8))
        }
    }

    /// The authenticator secret of a setup link: derived from the link's token, so the page can
    /// show it again (a reload) and nothing is stored until the operator proves a code of it.
    private func setupSecret(_ token: String) -> TOTPCheck {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: setupKey)
        return TOTPCheck(secret: Data(mac).prefix(20).map { String(format: "%02x", $0) }.joined())
    }

    private func audited<T: Sendable>(_ command: OperatorCommand, account: OperatorAccount, clientIP: String? = nil,
                                      _ change: (any Store) async throws -> T) async throws -> T {
        try await AuditTrail.run(actor: .operator, clientIP: clientIP, store: store) { trail in
            trail.record(.operatorCommand, user: nil,
                         details: command.details.merging(["operatorAccount": account.id, "operator": account.email]) { $1 },
                         at: now())
            return try await change(store.recording(into: trail))
        }
    }

    private func record(_ command: OperatorCommand, account: OperatorAccount?, outcome: AuditOutcome, reason: String?, clientIP: String?) async throws {
        try await AuditTrail.run(actor: .operator, clientIP: clientIP, store: store) { trail in
            var details = command.details
            if let account { details["operatorAccount"] = account.id; details["operator"] = account.email }
            if let reason { details["refused"] = reason }
            trail.record(.operatorCommand, user: nil, outcome: outcome, details: details, at: now())
        }
    }
}
