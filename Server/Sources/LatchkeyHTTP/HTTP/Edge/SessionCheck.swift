import LatchkeyContract
import LatchkeyCore
import LatchkeyDomain

/// The session a request's token names, held to its device key (RFC 9449 §7) and to the kind of
/// session its operation takes (`session` in the policy).
package struct SessionCheck: Sendable {
    /// The token lookup, one reference (it runs on every request).
    package let sessions: SessionLookup
    package let deviceBinding: DeviceBindingMode
    package let kind: OperationPolicy.SessionKind

    package init(sessions: SessionLookup, deviceBinding: DeviceBindingMode, policy: OperationPolicy) {
        self.sessions = sessions
        self.deviceBinding = deviceBinding
        self.kind = policy.session
    }

    /// Who the request's token names: `.anonymous` without one, `.invalidToken` for one that names
    /// no live session, else the session's principal, held to its key (`bind`).
    /// - Throws: the refusals of `bind`; the store's error.
    package func identity(of credential: SessionCredential?, proof: DPoPProof?) async throws -> Identity {
        try bind(try await sessions.identity(token: credential?.token), credential, proof)
    }

    /// Holds a bound session to its key: it works only as `Authorization: DPoP` (or Kratos's
    /// header) with a proof by the key it is bound to; an unbound one only as a bearer token.
    ///
    /// An operation that takes only `full` sessions (the wallet API's) also needs a registered device
    /// key: a phone sign-up's session is limited to Kratos's routes until its key is registered, and
    /// with `deviceBinding: required` an unbound session (a Kratos login without a proof, or one from
    /// before the switch) is refused.
    /// - Throws: `DomainError(.boundTokenWithoutProof)` or `DomainError(.deviceKeyRequired)`.
    package func bind(_ identity: Identity, _ credential: SessionCredential?, _ proof: DPoPProof?) throws -> Identity {
        guard case .authenticated(let principal) = identity, let credential else { return identity }
        if let key = principal.session.keyThumbprint {
            guard credential.scheme != .bearer, proof?.thumbprint == key else { throw DomainError(.boundTokenWithoutProof) }
        } else if credential.scheme == .dpop {
            throw DomainError(.boundTokenWithoutProof, message: "The token is not bound to a key; send it as Bearer.")
        }
        if kind == .full {
            if principal.session.limited { throw DomainError(.deviceKeyRequired) }
            if deviceBinding == .required, principal.session.keyThumbprint == nil { throw DomainError(.deviceKeyRequired) }
        }
        return identity
    }
}
