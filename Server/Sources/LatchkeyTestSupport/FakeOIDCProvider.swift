import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import LatchkeyCore
import NIOCore

/// An in-process OpenID Connect provider for unit tests: discovery, JWKS, an authorization-code
/// token endpoint (client_secret_basic, single-use codes, redirect URI checked) and userinfo. Codes
/// are minted directly; tests can forge tokens, rotate keys, or make the provider fail or stall.
public final class FakeOIDCProvider: @unchecked Sendable {
    public enum Mode: Sendable { case normal, down, slow }
    struct Grant {
        var subject: String
        var claims: [String: String]
        var audience: String
        var expiresIn: TimeInterval
        var forged: Bool
        var withEmailInToken: Bool
        var timing = TokenTiming()
        /// PKCE: the S256 `code_challenge` the authorization request carried.
        var codeChallenge: String?
    }

    /// What a test can bend in an ID token: `azp`, `nbf` and `iat` (offsets in seconds from now).
    public struct TokenTiming: Sendable {
        public var authorizedParty: String?
        public var notBefore: TimeInterval?
        public var issuedAt: TimeInterval = 0
        public init(authorizedParty: String? = nil, notBefore: TimeInterval? = nil, issuedAt: TimeInterval = 0) {
            self.authorizedParty = authorizedParty
            self.notBefore = notBefore
            self.issuedAt = issuedAt
        }
    }
    struct IDToken: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var nbf: NotBeforeClaim?
        var azp: String?
        var email: String?
        var email_verified: Bool?
        var given_name: String?
        var family_name: String?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    public static let clientID = "wallet-app"
    public static let clientSecret = "s3cret"
    public static let redirectURI = "com.example.wallet:/oauth"

    private let lock = NSLock()
    private var grants: [String: Grant] = [:]
    private var accessTokens: [String: Grant] = [:]
    private var keys: [(kid: String, key: ES256PrivateKey)] = [("k1", try! ES256PrivateKey(backing: P256.Signing.PrivateKey()))]
    private let forgedKey = try! ES256PrivateKey(backing: P256.Signing.PrivateKey())
    public var mode: Mode {
        get { lock.withLock { _mode } }
        set { lock.withLock { _mode = newValue } }
    }
    private var _mode = Mode.normal

    /// A code for `subject`, as the app would get it from the authorization endpoint.
    public func code(subject: String, email: String? = nil, verified: Bool = true, audience: String = clientID,
              expiresIn: TimeInterval = 300, forged: Bool = false, emailInToken: Bool = true,
              timing: TokenTiming = TokenTiming(), codeChallenge: String? = nil) -> String {
        let code = "code-" + UUID().uuidString
        var claims = ["given_name": "Ada", "family_name": "Lovelace"]
        if let email { claims["email"] = email; claims["email_verified"] = verified ? "true" : "false" }
        lock.withLock {
            grants[code] = Grant(subject: subject, claims: claims, audience: audience, expiresIn: expiresIn, forged: forged,
                                 withEmailInToken: emailInToken, timing: timing, codeChallenge: codeChallenge)
        }
        return code
    }

    /// Starts signing with a new key (`kid` k2, k3, …), as a provider rotating its keys does.
    public func rotateKeys() {
        lock.withLock { keys.insert(("k\(keys.count + 1)", try! ES256PrivateKey(backing: P256.Signing.PrivateKey())), at: 0) }
    }

    /// Replaces the signing key but keeps its `kid`, as some providers do.
    public func rotateKeysKeepingKid() {
        lock.withLock { keys[0] = (keys[0].kid, try! ES256PrivateKey(backing: P256.Signing.PrivateKey())) }
    }

    /// The provider's clock, which dates the ID tokens it issues: the server's under test when
    /// that server runs on a test clock, so a token's `iat` is never ahead of the server's time
    /// however long the test waited before asking for it.
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = Date.init) { self.now = now }

    /// The provider's HTTP application (listen on port 0; run it with HummingbirdTesting's `.live`).
    public func application() -> some ApplicationProtocol {
        let router = Router()
        router.get("/.well-known/openid-configuration") { request, _ -> Response in
            let base = "http://\(request.head.authority ?? "127.0.0.1")"
            return Self.json(["issuer": base, "token_endpoint": base + "/token", "jwks_uri": base + "/jwks",
                              "userinfo_endpoint": base + "/userinfo", "authorization_endpoint": base + "/authorize"])
        }
        router.get("/jwks") { _, _ -> Response in
            let published = self.lock.withLock { self.keys }
            return Self.json(["keys": published.map { kid, key in
                ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
                 "x": key.parameters?.x ?? "", "y": key.parameters?.y ?? ""]
            }])
        }
        router.post("/token") { request, _ -> Response in try await self.token(request) }
        router.get("/userinfo") { request, _ -> Response in
            let token = request.headers[.authorization]?.replacingOccurrences(of: "Bearer ", with: "") ?? ""
            guard let grant = self.lock.withLock({ self.accessTokens[token] }) else { return Response(status: .unauthorized) }
            var claims: [String: Any] = grant.claims
            claims["sub"] = grant.subject
            if let verified = grant.claims["email_verified"] { claims["email_verified"] = verified == "true" }
            return Self.json(claims)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    private func token(_ request: Request) async throws -> Response {
        switch mode {
        case .down: return Response(status: .internalServerError)
        case .slow: try await Task.sleep(for: .seconds(3))
        case .normal: break
        }
        let expected = "Basic " + Data("\(Self.clientID):\(Self.clientSecret)".utf8).base64EncodedString()
        guard request.headers[.authorization] == expected else { return Self.json(["error": "invalid_client"], status: .unauthorized) }
        let body = String(buffer: try await request.body.collect(upTo: 65_536))
        var form: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        guard form["grant_type"] == "authorization_code", form["redirect_uri"] == Self.redirectURI,
              let code = form["code"], let grant = lock.withLock({ grants.removeValue(forKey: code) }) else {
            return Self.json(["error": "invalid_grant"], status: .badRequest)
        }
        if let challenge = grant.codeChallenge, Self.s256(form["code_verifier"] ?? "") != challenge {
            return Self.json(["error": "invalid_grant", "error_description": "PKCE verification failed"], status: .badRequest)
        }
        let base = "http://\(request.head.authority ?? "127.0.0.1")"
        let now = self.now()
        let claims = grant.withEmailInToken ? grant.claims : [:]
        let payload = IDToken(iss: .init(value: base), sub: .init(value: grant.subject), aud: .init(value: [grant.audience]),
                              exp: .init(value: now.addingTimeInterval(grant.expiresIn)),
                              iat: .init(value: now.addingTimeInterval(grant.timing.issuedAt)),
                              nbf: grant.timing.notBefore.map { .init(value: now.addingTimeInterval($0)) },
                              azp: grant.timing.authorizedParty,
                              email: claims["email"], email_verified: claims["email_verified"].map { $0 == "true" },
                              given_name: claims["given_name"], family_name: claims["family_name"])
        let (kid, key) = lock.withLock { keys[0] }
        let signer = JWTKeyCollection()
        await signer.add(ecdsa: grant.forged ? forgedKey : key, kid: JWKIdentifier(string: kid))
        let idToken = try await signer.sign(payload, kid: JWKIdentifier(string: kid))
        let access = "at-" + UUID().uuidString
        lock.withLock { accessTokens[access] = grant }
        return Self.json(["access_token": access, "token_type": "Bearer", "expires_in": 300, "id_token": idToken])
    }

    /// RFC 7636's S256 challenge of a verifier.
    public static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URL
    }

    private static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
