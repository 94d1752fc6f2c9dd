import Crypto
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Signs a DPoP proof (RFC 9449) with the device key for every request: `typ: dpop+jwt`,
/// `alg: ES256`, the public key as `jwk`, and `jti`, `htm`, `htu`, `iat`, `ath` (when a session
/// is sent) and the server's latest nonce. The session goes as `Authorization: DPoP …`; a
/// `use_dpop_nonce` refusal is retried once with the nonce it names.
actor DPoPSigner {
    private let storage: any CredentialStorage
    private let now: @Sendable () -> Date
    private var key: DeviceKey?
    private var nonce: String?

    init(storage: any CredentialStorage, now: @escaping @Sendable () -> Date) {
        self.storage = storage
        self.now = now
    }

    /// The device key, loaded or created once.
    func deviceKey() async throws -> DeviceKey {
        if let key { return key }
        let loaded = try await DeviceKey.loadOrCreate(in: storage)
        key = loaded
        return loaded
    }

    func remember(nonce: String?) {
        if let nonce, !nonce.isEmpty { self.nonce = nonce }
    }

    /// A proof for `method url` (without query), hashing `accessToken` when one is sent.
    func proof(method: String, url: String, accessToken: String?) async throws -> String {
        let key = try await deviceKey()
        let header = #"{"alg":"ES256","jwk":{"crv":"P-256","kty":"EC","x":"\#(key.x)","y":"\#(key.y)"},"typ":"dpop+jwt"}"#
        var claims: [String: Any] = ["jti": UUID().uuidString, "htm": method, "htu": url, "iat": Int(now().timeIntervalSince1970)]
        if let accessToken { claims["ath"] = Data(SHA256.hash(data: Data(accessToken.utf8))).base64URL }
        if let nonce { claims["nonce"] = nonce }
        let input = Data(header.utf8).base64URL + "." + (try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)).base64URL
        return input + "." + (try key.sign(Data(input.utf8))).base64URL
    }
}

struct DPoPMiddleware: ClientMiddleware {
    let signer: DPoPSigner
    static let proofHeader = HTTPField.Name("DPoP")!
    static let nonceHeader = HTTPField.Name("DPoP-Nonce")!

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        var request = request
        var token: String?
        // Every session this SDK opens was opened with a proof, so it is bound: send it as DPoP.
        if let authorization = request.headerFields[.authorization], authorization.hasPrefix("Bearer ") {
            token = String(authorization.dropFirst(7))
            request.headerFields[.authorization] = "DPoP \(token!)"
        }
        let path = String((request.path ?? "").prefix { $0 != "?" && $0 != "#" })
        let base = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        var answer: (HTTPResponse, HTTPBody?) = (HTTPResponse(status: .internalServerError), nil)
        for attempt in 0..<2 {
            request.headerFields[Self.proofHeader] = try await signer.proof(method: request.method.rawValue, url: base + path,
                                                                           accessToken: token)
            answer = try await next(request, body, baseURL)
            await signer.remember(nonce: answer.0.headerFields[Self.nonceHeader])
            let challenge = answer.0.headerFields[.wwwAuthenticate] ?? ""
            guard attempt == 0, answer.0.status == .unauthorized, challenge.contains("use_dpop_nonce") else { break }
        }
        return answer
    }
}
