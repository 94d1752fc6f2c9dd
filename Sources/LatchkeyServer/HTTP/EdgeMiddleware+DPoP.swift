import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The session token of a request and how it was sent.
struct SessionCredential {
    enum Scheme { case bearer, dpop, sessionHeader }
    let scheme: Scheme
    let token: String

    /// `Authorization: Bearer …` or `Authorization: DPoP …`; on Kratos's routes `X-Session-Token`
    /// first, as Kratos reads it. Nil when none is sent.
    init?(_ request: Request, dialect: ErrorDialect) {
        if dialect == .kratos, let token = request.headers[.sessionToken], !token.isEmpty {
            (scheme, self.token) = (.sessionHeader, token)
            return
        }
        guard let value = request.headers[.authorization] else { return nil }
        let lower = value.lowercased()
        let token: String
        if lower.hasPrefix("bearer ") {
            (scheme, token) = (.bearer, String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        } else if lower.hasPrefix("dpop ") {
            (scheme, token) = (.dpop, String(value.dropFirst(5)).trimmingCharacters(in: .whitespaces))
        } else {
            return nil
        }
        guard !token.isEmpty else { return nil }
        self.token = token
    }
}

/// Which calls ask more of a proof. Stored once (the edge is generic, so they cannot live on it).
enum DPoPPolicy {
    /// The calls that check a credential or open a session: a proof sent with one must carry the
    /// server's nonce and is recorded in the database, so no replica accepts it twice.
    static let nonceRequiredPaths: Set<String> = [
        "/v1/auth/login/password", "/v1/auth/login/pin", "/v1/auth/login/nonce", "/v1/auth/mfa",
        "/v1/auth/login/device-token", "/v1/auth/login/federated", "/v1/auth/device-token",
        "/v1/profile/password", "/v1/profile/passcode",
    ]

    /// The calls that act for a device (logins, registrations): with `deviceBinding: required` they
    /// need a proof.
    static let deviceRequiredPaths = nonceRequiredPaths.union(["/v1/enrollment/users", "/v1/enrollment/customers"])
}

extension EdgeMiddleware {
    /// The request's DPoP proof, verified; nil when it sends none.
    func verifyProof(_ request: Request, credential: SessionCredential?) async throws -> DPoPProof? {
        let values = request.headers[values: .dpop]
        guard let proof = values.first else {
            if credential?.scheme == .dpop { throw DomainError(.invalidDPoPProof, message: "Authorization: DPoP needs a DPoP proof.", field: "DPoP") }
            return nil
        }
        guard values.count == 1 else { throw DomainError(.invalidDPoPProof, message: "Send one DPoP proof.", field: "DPoP") }
        let path = request.uri.path
        let credentialCall = DPoPPolicy.nonceRequiredPaths.contains(path)
        // A token sent as DPoP or in Kratos's header with a proof must be the one the proof hashes
        // (`ath`); only a bearer token, which a proof does not bind, is left out.
        let verified = try await dpop.verify(proof, method: request.method.rawValue, path: path,
                                             accessToken: credential.flatMap { $0.scheme == .bearer ? nil : $0.token },
                                             requireNonce: credentialCall)
        // The in-memory replay cache is per process; a credential call's proof is recorded in the
        // database too, so another replica refuses it as well.
        if credentialCall {
            let time = dpop.now()
            guard try await proofs.recordProof(digest: SecureRandom.digest(verified.thumbprint + "." + verified.jti),
                                               expiresAt: time.addingTimeInterval(2 * DPoPVerifier.window), now: time)
            else { throw DPoPVerifier.invalid("The DPoP proof was used before.") }
        }
        return verified
    }

    /// Holds a bound session to its key (RFC 9449 §7): it works only as `Authorization: DPoP` (or
    /// Kratos's header) with a proof by the key it is bound to; an unbound one only as a bearer token.
    ///
    /// On the wallet API a session must also hold a registered device key: a phone sign-up's session
    /// is limited to Kratos's routes until its key is registered, and with `deviceBinding: required`
    /// an unbound session (a Kratos login without a proof, or one from before the switch) is refused.
    func bind(_ identity: Identity, _ credential: SessionCredential?, _ proof: DPoPProof?) throws -> Identity {
        guard case .authenticated(let principal) = identity, let credential else { return identity }
        if let key = principal.session.keyThumbprint {
            guard credential.scheme != .bearer, proof?.thumbprint == key else { throw DomainError(.boundTokenWithoutProof) }
        } else if credential.scheme == .dpop {
            throw DomainError(.boundTokenWithoutProof, message: "The token is not bound to a key; send it as Bearer.")
        }
        if Context.dialect == .wallet {
            if principal.session.limited { throw DomainError(.deviceKeyRequired) }
            if deviceBinding == .required, principal.session.keyThumbprint == nil { throw DomainError(.deviceKeyRequired) }
        }
        return identity
    }

    /// A device-binding refusal with RFC 9449's `WWW-Authenticate: DPoP` challenge, and the
    /// current nonce when the proof lacked it.
    func dpopRefusal(_ error: DomainError) -> Response {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = error.dpopChallenge
        if error.kind == .useDPoPNonce { headers[.dpopNonce] = dpop.nonces.current(at: dpop.now()) }
        return Context.dialect.response(error, headers: headers)
    }
}

extension DomainError {
    /// RFC 9449's `WWW-Authenticate: DPoP` challenge for a device-binding refusal; RFC 6750's
    /// `invalid_token` names a session that has no registered device key too.
    var dpopChallenge: String {
        let code = kind == .deviceKeyRequired ? ErrorID.invalidToken.rawValue : id.rawValue
        return #"DPoP error="\#(code)", algs="ES256""#
    }
}

extension ErrorKind {
    /// The refusals of RFC 9449, answered with a `WWW-Authenticate: DPoP` challenge.
    var isDeviceBinding: Bool {
        self == .invalidDPoPProof || self == .useDPoPNonce || self == .boundTokenWithoutProof || self == .deviceKeyRequired
    }
}
