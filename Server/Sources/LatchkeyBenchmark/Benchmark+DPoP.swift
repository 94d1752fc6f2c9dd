import Crypto
import Foundation
import Logging
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// A device key that signs DPoP proofs (RFC 9449) as the SDK does.
struct DPoPSigner {
    let key = P256.Signing.PrivateKey()
    var thumbprint: String { DPoPVerifier.thumbprint(of: key.publicKey) }

    /// A proof of `method url`, with `ath` for `token` when given.
    func proof(method: String, url: String, token: String?, jti: String = UUID().uuidString, at now: Date = Date()) throws -> String {
        let point = key.publicKey.rawRepresentation
        let (x, y) = (Data(point.prefix(32)).base64URL, Data(point.suffix(32)).base64URL)
        let header = Data(#"{"alg":"ES256","jwk":{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"},"typ":"dpop+jwt"}"#.utf8).base64URL
        let ath = token.map { #","ath":""# + Data(SHA256.hash(data: Data($0.utf8))).base64URL + "\"" } ?? ""
        let claims = #"{"htm":"\#(method)","htu":"\#(url)","iat":\#(Int(now.timeIntervalSince1970)),"jti":"\#(jti)"\#(ath)}"#
        let input = header + "." + Data(claims.utf8).base64URL
        return input + "." + Data(try key.signature(for: Data(input.utf8)).rawRepresentation).base64URL
    }
}

/// A device-bound session for the benchmark: a session bound to a P-256 key and proofs for it,
/// signed before the timed run so the client's signing does not compete with the server for the
/// same cores (the server verifies one ES256 signature per request, which is what is measured).
struct BoundSession {
    let token: String
    let proofs: [String]

    /// Stores a session bound to a new key (as a login with a proof would) and signs `count`
    /// proofs of `GET url` for it, each with its own `jti`.
    static func prepare(store: any SessionStore, userID: String, url: String, count: Int) async throws -> BoundSession {
        let signer = DPoPSigner()
        let token = UUID().uuidString + UUID().uuidString
        let now = Date()
        try await store.createSession(SessionRecord(digest: SecureRandom.digest(token), userID: userID,
                                                        deviceID: "jkt:" + signer.thumbprint, createdAt: now, lastSeenAt: now,
                                                        expiresAt: now.addingTimeInterval(3600), keyThumbprint: signer.thumbprint))
        let proofs = try (0..<count).map { try signer.proof(method: "GET", url: url, token: token, jti: "bench-\($0)", at: now) }
        return BoundSession(token: token, proofs: proofs)
    }

    /// The bound session check against a separately started server (`--url` with `--database`
    /// naming its database): the benchmark stores a user and a bound session in that database, as
    /// a login with a proof would, and drives the server over the network.
    static func measureExternal(database: String, issuer: String, driver: LoadDriver, seconds: Double,
                                health: LoadDriver.Result, logger: Logger) async throws {
        try await StoreFactory.withStore(database, logger: logger, migrate: false) { store in
            let now = Date()
            let id = SecureRandom.identifier()
            let user = UserRecord(id: id, issuer: issuer, email: "bench-\(id)@example.com", emailNormalized: "bench-\(id)@example.com",
                                  firstName: "Bench", lastName: "Bound", phone: nil, externalId: nil, passwordHash: nil,
                                  passcodeHash: nil, emailVerified: true, createdAt: now, updatedAt: now)
            try await store.createUser(user, answers: [], tokens: [], messages: [])
            let bound = try await prepare(store: store, userID: id, url: driver.base.absoluteString + "/v1/auth/session",
                                          count: Int(seconds * 40_000))
            try await driver.measure("GET /v1/auth/session (DPoP-bound)", seconds: seconds) { index in
                .init(path: "/v1/auth/session",
                      headers: [("Authorization", "DPoP \(bound.token)"), ("DPoP", bound.proofs[index % bound.proofs.count])])
            }.print(baseline: health)
        }
    }
}
