import Foundation
import LatchkeyCore

/// The audit trail of operators' work: each call of an operator service — from the admin API, the
/// console or the command line — is an `operator.command` event naming the command
/// (`OperatorCommand`), who asked (`OperatorCall.details`), the client address and the user it
/// concerns, in the call's own audit scope. Every operator service records through this one, so
/// one act is the same event whichever channel asked for it.
public struct OperatorTrail: Sendable {
    public typealias Store = UserStore & AuditStore
    package let store: any Store
    package let issuer: IssuerSettings
    package let now: @Sendable () -> Date

    public init(store: any Store, issuer: IssuerSettings, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.issuer = issuer
        self.now = now
    }

    /// The user a call is about: by id (the admin API and the console) or by address (the command line).
    public enum UserReference: Sendable, Equatable {
        case id(String)
        case email(String)
    }

    /// Runs a call about a user in its own audit scope: its `operator.command` event names the
    /// call, the operator, the client address and the user, recorded before the change so that a
    /// change writes it in its own transaction; a user that does not exist (or is another
    /// issuer's) is a failed event (with the id asked for; an address is not kept) and
    /// `DomainError(.unknownUser)` naming `userId` or `email`. A body that refuses before it
    /// writes (an unknown device) leaves a failed event naming the error instead of what it
    /// recorded. The body makes its changes through its store's view of the trail
    /// (`store.recording(into: trail)`).
    package func recorded<T: Sendable>(_ command: OperatorCommand, user reference: UserReference, call: OperatorCall,
                                       _ body: (UserRecord, AuditTrail) async throws -> T) async throws -> T {
        try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: store) { trail in
            var details = Self.details(command, call)
            guard let user = try await find(reference) else {
                let error: DomainError
                switch reference {
                case .id(let id):
                    details["userId"] = String(id.prefix(64))
                    error = DomainError(.unknownUser, field: "userId")
                case .email(let email):
                    error = DomainError(.unknownUser, message: "No user with email \(email).", field: "email")
                }
                trail.record(.operatorCommand, user: nil, outcome: .failure, details: details, at: now())
                throw error
            }
            // No device on the operator's own event: it is never redacted (an erasure leaves it),
            // so it names the user by its id only; the change's own events name the device.
            let reason: AuditReason? = command.readsUsers ? .read : nil
            trail.record(.operatorCommand, user: user.id, reason: reason, details: details, at: now())
            do {
                return try await body(user, trail)
            } catch let error as DomainError {
                // Still pending: nothing was written, so what the body recorded did not happen.
                if trail.take().first?.type == .operatorCommand {
                    details["error"] = error.id.rawValue
                    trail.record(.operatorCommand, user: user.id, outcome: .failure, reason: reason, details: details, at: now())
                }
                throw error
            }
        }
    }

    /// Runs a call that is about no one user (or reads one) in its own audit scope, its event
    /// about `user` when it concerns one; a refusal is a failed event naming the error.
    package func recorded<T: Sendable>(_ command: OperatorCommand, user: String?, call: OperatorCall,
                                       _ body: () async throws -> T) async throws -> T {
        try await recorded(command, users: user.map { [$0] } ?? [], call: call, body)
    }

    /// As `recorded(_:user:call:_:)`, with an event for each user the call disclosed (one about
    /// no user when it disclosed none), so each user's trail shows who looked it up.
    package func recorded<T: Sendable>(_ command: OperatorCommand, users: [String], call: OperatorCall,
                                       _ body: () async throws -> T) async throws -> T {
        try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: store) { trail in
            var details = Self.details(command, call)
            let named: [String?] = users.isEmpty ? [nil] : users
            let reason: AuditReason? = command.readsUsers ? .read : nil
            for user in named { trail.record(.operatorCommand, user: user, reason: reason, details: details, at: now()) }
            do {
                return try await body()
            } catch let error as DomainError {
                if trail.take().first?.type == .operatorCommand {
                    details["error"] = error.id.rawValue
                    for user in named {
                        trail.record(.operatorCommand, user: user, outcome: .failure, reason: reason, details: details, at: now())
                    }
                }
                throw error
            }
        }
    }

    /// Records a call the edge refused to a known key or operator (its role is below the
    /// operation's): a failed `operator.command` whose `refused` is the caller's role, about the
    /// user the call named (`userID`, the path's), so it is among that user's events; an id that
    /// names no user of the issuer is kept in the `userId` detail instead, as `recorded` keeps it.
    /// Throws what the database throws.
    public func refused(_ operation: AdminOperation, userID: String? = nil, for call: OperatorCall) async throws {
        try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: store) { trail in
            var details = Self.details(.admin(operation), call)
            details["refused"] = call.role.rawValue
            var user: String?
            if let userID {
                if let found = try await find(.id(userID)) { user = found.id } else { details["userId"] = String(userID.prefix(64)) }
            }
            trail.record(.operatorCommand, user: user, outcome: .failure, details: details, at: now())
        }
    }

    /// The issuer's user `reference` names, nil for none (or another issuer's).
    package func find(_ reference: UserReference) async throws -> UserRecord? {
        let user = switch reference {
        case .id(let id): try await store.user(id: id)
        case .email(let email): try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email))
        }
        return user?.issuer == issuer.id ? user : nil
    }

    /// The event details of `command` done by `call`: the command and who asked.
    package static func details(_ command: OperatorCommand, _ call: OperatorCall) -> [String: String] {
        call.details.merging(command.details) { _, command in command }
    }
}
