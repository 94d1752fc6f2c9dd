import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing

/// A device key that signs DPoP proofs the way RFC 9449 describes, written independently of the
/// server's jwt-kit verification so the tests check the wire, not the implementation.
struct TestDeviceKey {
    let key: P256.Signing.PrivateKey

    /// A new key, or a fixed one (a documented example's).
    init(key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) { self.key = key }

    static let base = "https://wallet.example"

    var x: String { Self.b64(key.publicKey.rawRepresentation.prefix(32)) }
    var y: String { Self.b64(key.publicKey.rawRepresentation.suffix(32)) }

    /// RFC 7638 thumbprint.
    var thumbprint: String {
        Self.b64(SHA256.hash(data: Data(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8)))
    }

    /// A proof for `method path` (on `base`); each parameter can be spoiled by a test.
    func proof(_ method: String, _ path: String, token: String? = nil, nonce: String? = nil, iat: Date = TestClock.serverNow,
               jti: String = UUID().uuidString, typ: String = "dpop+jwt", alg: String = "ES256", htu: String? = nil,
               extraJWK: [String: String] = [:], ath: String? = nil, signer: P256.Signing.PrivateKey? = nil) -> String {
        var jwk: [String: String] = ["kty": "EC", "crv": "P-256", "x": x, "y": y]
        jwk.merge(extraJWK) { $1 }
        let header: [String: Any] = ["typ": typ, "alg": alg, "jwk": jwk]
        var claims: [String: Any] = ["jti": jti, "htm": method, "htu": htu ?? Self.base + path, "iat": Int(iat.timeIntervalSince1970)]
        if let token { claims["ath"] = ath ?? Self.b64(SHA256.hash(data: Data(token.utf8))) } else if let ath { claims["ath"] = ath }
        if let nonce { claims["nonce"] = nonce }
        let input = Self.b64(try! JSONSerialization.data(withJSONObject: header, options: .sortedKeys)) + "."
            + Self.b64(try! JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let signature = try! (signer ?? key).signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Self.b64(signature)
    }

    static func b64(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension HTTPFields {
    /// These headers with a DPoP proof and, when given, the token under the `DPoP` scheme.
    func with(proof: String, dpopToken: String? = nil) -> HTTPFields {
        var headers = self
        headers[HTTPField.Name("DPoP")!] = proof
        if let dpopToken { headers[.authorization] = "DPoP \(dpopToken)" }
        return headers
    }
}


extension TestClientProtocol {
    /// A `/v1` call proved by `key` (and carrying `token` under the DPoP scheme when given); a
    /// `use_dpop_nonce` refusal is answered once with the nonce it names, as the SDK does.
    func dpopCall(_ key: TestDeviceKey, _ method: HTTPRequest.Method, _ path: String, device: String = "device-1",
                  token: String? = nil, body: Any? = nil) async throws -> JSONAnswer {
        var nonce: String?
        for _ in 0..<2 {
            let proof = key.proof(method.rawValue, path, token: token, nonce: nonce)
            let answer = try await call(method, path, headers: appHeaders(device: device).with(proof: proof, dpopToken: token), body: body)
            guard answer.failure?.id == "use_dpop_nonce", nonce == nil else { return answer }
            nonce = try #require(answer.headers[HTTPField.Name("DPoP-Nonce")!])
        }
        Issue.record("use_dpop_nonce twice")
        return try await call(method, path)
    }
}

extension AuthFixture {
    /// Registers `email` and logs in with its registration nonce, both proved by `key`: the key
    /// is linked to the wallet. Then logs in there with the password, as a user does before a
    /// privileged change (a nonce login is not a knowledge factor). Answers that bound session.
    static func keyEnrolledSession(_ app: LatchkeyApplication, _ client: any TestClientProtocol, key: TestDeviceKey,
                                   email: String = "ada@example.com", label: String = "device-1") async throws -> String {
        let registered = try await client.dpopCall(key, .post, "/v1/enrollment/users", device: label, body: registrationBody(email: email))
        #expect(registered.status == .created, "\(registered.json)")
        let nonce = try #require(registered.registration?.nonce)
        try await verifyEmail(app, client, email: email)
        let login = try await client.dpopCall(key, .post, "/v1/auth/login/nonce", device: label, body: ["nonce": nonce])
        #expect(login.status == .ok, "\(login.json)")
        #expect(login.login?.tokenType == .dPoP)
        let password = try await client.dpopCall(key, .post, "/v1/auth/login/password", device: label,
                                                 body: ["username": email, "password": password])
        #expect(password.status == .ok, "\(password.json)")
        #expect(password.login?.tokenType == .dPoP)
        return try #require(password.login?.sessionToken)
    }
}
