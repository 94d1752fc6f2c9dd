import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// The session token of a request and how it was sent.
package struct SessionCredential {
    package enum Scheme { case bearer, dpop, sessionHeader }
    package let scheme: Scheme
    package let token: String

    /// `Authorization: Bearer …` or `Authorization: DPoP …`; on Kratos's routes `X-Session-Token`
    /// first, as Kratos reads it. Nil when none is sent.
    package init?(_ request: Request, dialect: ErrorDialect) {
        if dialect == .kratos, let token = request.headers[.sessionToken], !token.isEmpty {
            (scheme, self.token) = (.sessionHeader, token)
            return
        }
        guard let value = request.headers[.authorization] else { return nil }
        let token: String
        // The scheme compared without lower-casing the whole header: this runs on every request.
        if Self.hasScheme(value, "bearer ") {
            (scheme, token) = (.bearer, Self.trimmed(value.utf8.dropFirst(7)))
        } else if Self.hasScheme(value, "dpop ") {
            (scheme, token) = (.dpop, Self.trimmed(value.utf8.dropFirst(5)))
        } else {
            return nil
        }
        guard !token.isEmpty else { return nil }
        self.token = token
    }

    /// The token without the spaces and tabs around it (RFC 9110's whitespace; a token is ASCII, so
    /// any other character around it, which Foundation's trimming removed before, stays and the
    /// token names no session).
    private static func trimmed(_ bytes: Substring.UTF8View) -> String {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else { return "" }
        return String(Substring(bytes[first...last]))
    }

    /// Whether `value` starts with `scheme` (lower-case ASCII), ignoring ASCII case.
    private static func hasScheme(_ value: String, _ scheme: StaticString) -> Bool {
        let prefix = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
        var bytes = value.utf8.makeIterator()
        for expected in prefix {
            guard let byte = bytes.next() else { return false }
            let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            guard lower == expected else { return false }
        }
        return true
    }
}

extension EdgeMiddleware {
    /// The request's DPoP proof, verified; nil when it sends none.
    package func verifyProof(_ request: Request, credential: SessionCredential?) async throws -> DPoPProof? {
        let values = request.headers[values: .dpop]
        guard let proof = values.first else {
            if credential?.scheme == .dpop { throw DomainError(.invalidDPoPProof, message: "Authorization: DPoP needs a DPoP proof.", field: "DPoP") }
            return nil
        }
        guard values.count == 1 else { throw DomainError(.invalidDPoPProof, message: "Send one DPoP proof.", field: "DPoP") }
        // A token sent as DPoP or in Kratos's header with a proof must be the one the proof hashes
        // (`ath`); only a bearer token, which a proof does not bind, is left out.
        let verified = try await dpop.verify(proof, method: request.method.rawValue, path: request.uri.path,
                                             accessToken: credential.flatMap { $0.scheme == .bearer ? nil : $0.token },
                                             requireNonce: policy.nonce)
        // The in-memory replay cache is per process; a credential call's proof is recorded in the
        // database too, so another replica refuses it as well.
        if policy.recordProof { try await record(verified) }
        return verified
    }

    /// Records a proof in the database for twice its window; one recorded before is refused.
    package func record(_ proof: DPoPProof) async throws {
        let time = dpop.now()
        guard try await proofs.recordProof(digest: SecureRandom.digest(proof.thumbprint + "." + proof.jti),
                                           expiresAt: time.addingTimeInterval(2 * DPoPVerifier.window), now: time)
        else { throw DPoPVerifier.invalid("The DPoP proof was used before.") }
    }

    /// Holds a bound session to its key (RFC 9449 §7): it works only as `Authorization: DPoP` (or
    /// Kratos's header) with a proof by the key it is bound to; an unbound one only as a bearer token.
    ///
    /// An operation that takes only `full` sessions (the wallet API's) also needs a registered device
    /// key: a phone sign-up's session is limited to Kratos's routes until its key is registered, and
    /// with `deviceBinding: required` an unbound session (a Kratos login without a proof, or one from
    /// before the switch) is refused. A `privileged` operation needs a recent knowledge-factor login.
    package func bind(_ identity: Identity, _ credential: SessionCredential?, _ proof: DPoPProof?) throws -> Identity {
        guard case .authenticated(let principal) = identity, let credential else { return identity }
        if let key = principal.session.keyThumbprint {
            guard credential.scheme != .bearer, proof?.thumbprint == key else { throw DomainError(.boundTokenWithoutProof) }
        } else if credential.scheme == .dpop {
            throw DomainError(.boundTokenWithoutProof, message: "The token is not bound to a key; send it as Bearer.")
        }
        if policy.session == .full {
            if principal.session.limited { throw DomainError(.deviceKeyRequired) }
            if deviceBinding == .required, principal.session.keyThumbprint == nil { throw DomainError(.deviceKeyRequired) }
        }
        return identity
    }

    /// A device-binding refusal with RFC 9449's `WWW-Authenticate: DPoP` challenge, and the
    /// nonce for the proof's key when the proof lacked a current one (`nonceFor`).
    package func dpopRefusal(_ error: DomainError, nonceFor thumbprint: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = error.dpopChallenge
        if let thumbprint { headers[.dpopNonce] = dpop.nonces.current(for: thumbprint, at: dpop.now()) }
        return Context.dialect.response(error, headers: headers)
    }
}

extension DomainError {
    /// RFC 9449's `WWW-Authenticate: DPoP` challenge for a device-binding refusal; RFC 6750's
    /// `invalid_token` names a session that has no registered device key too.
    package var dpopChallenge: String {
        let code = kind == .deviceKeyRequired ? ErrorID.invalidToken.rawValue : id.rawValue
        return #"DPoP error="\#(code)", algs="ES256""#
    }
}

extension ErrorKind {
    /// The refusals of RFC 9449, answered with a `WWW-Authenticate: DPoP` challenge.
    package var isDeviceBinding: Bool {
        self == .invalidDPoPProof || self == .useDPoPNonce || self == .boundTokenWithoutProof || self == .deviceKeyRequired
    }
}
