import Crypto
import Foundation
import LatchkeyServer

/// A device-bound session for the benchmark: a session bound to a P-256 key and proofs for it,
/// signed before the timed run so the client's signing does not compete with the server for the
/// same cores (the server verifies one ES256 signature per request, which is what is measured).
struct BoundSession {
    let token: String
    let proofs: [String]

    /// Stores a session bound to a new key (as a login with a proof would) and signs `count`
    /// proofs of `GET url` for it, each with its own `jti`.
    static func prepare(app: LatchkeyApplication, userID: String, url: String, count: Int) async throws -> BoundSession {
        let key = P256.Signing.PrivateKey()
        let point = key.publicKey.rawRepresentation
        let (x, y) = (Data(point.prefix(32)).base64URL, Data(point.suffix(32)).base64URL)
        let thumbprint = DPoPVerifier.thumbprint(of: key.publicKey)
        let token = UUID().uuidString + UUID().uuidString
        let now = Date()
        try await app.store.createSession(SessionRecord(digest: SecureRandom.digest(token), userID: userID,
                                                        deviceID: "jkt:" + thumbprint, createdAt: now, lastSeenAt: now,
                                                        expiresAt: now.addingTimeInterval(3600), keyThumbprint: thumbprint))
        let header = Data(#"{"alg":"ES256","jwk":{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"},"typ":"dpop+jwt"}"#.utf8).base64URL
        let ath = Data(SHA256.hash(data: Data(token.utf8))).base64URL
        let iat = Int(now.timeIntervalSince1970)
        let proofs = try (0..<count).map { index in
            let claims = #"{"ath":"\#(ath)","htm":"GET","htu":"\#(url)","iat":\#(iat),"jti":"bench-\#(index)"}"#
            let input = header + "." + Data(claims.utf8).base64URL
            return input + "." + Data(try key.signature(for: Data(input.utf8)).rawRepresentation).base64URL
        }
        return BoundSession(token: token, proofs: proofs)
    }
}
