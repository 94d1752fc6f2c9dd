import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import LatchkeyDomain

/// What the edge tells a client about its device key (RFC 9449): a device-binding refusal with its
/// `WWW-Authenticate: DPoP` challenge, and the current `DPoP-Nonce` for the key a request proved.
package struct DPoPChallenge: Sendable {
    package let nonces: DPoPNonces
    package let now: @Sendable () -> Date
    /// The languages a refusal's message is said in (`Accept-Language`); nil: English.
    package let catalog: TextCatalog?

    package init(verifier: DPoPVerifier, catalog: TextCatalog? = nil) {
        self.nonces = verifier.nonces
        self.now = verifier.now
        self.catalog = catalog
    }

    /// The key's current nonce: sent with every answer to a request that proved it (RFC 9449 §8.2),
    /// and with a refusal of a proof that lacked it.
    package func nonce(for thumbprint: String) -> String {
        nonces.current(for: thumbprint, at: now())
    }

    /// A device-binding refusal in `dialect`, with the challenge and, for a proof that lacked a
    /// current nonce (`nonceFor`), the nonce to sign with.
    package func refusal(_ error: DomainError, nonceFor thumbprint: String? = nil, dialect: ErrorDialect, to request: Request) -> Response {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = error.dpopChallenge
        if let thumbprint { headers[.dpopNonce] = nonce(for: thumbprint) }
        return dialect.response(error, headers: headers, texts: catalog?.texts(for: request))
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
