import Crypto
import Foundation
import HTTPTypes
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime

/// Signs a DPoP proof (RFC 9449) with the device key for every request: `typ: dpop+jwt`,
/// `alg: ES256`, the public key as `jwk`, and `jti`, `htm`, `htu`, `iat`, `ath` (when a session
/// is sent) and the server's latest nonce. The session goes as `Authorization: DPoP …`; a
/// `use_dpop_nonce` refusal is retried once with the nonce it names, and a proof refused while the
/// device's clock is off is retried once on the server's time (its `Date`), which later proofs keep.
actor DPoPSigner {
    private let storage: any CredentialStorage
    private let now: @Sendable () -> Date
    private var key: DeviceKey?
    /// The one load-or-create in flight: concurrent first calls wait for it instead of each
    /// creating a key (the actor is re-entered while the storage is awaited).
    private var loading: Task<DeviceKey, any Error>?
    /// The replacement in flight (`replaceKey()`): calls meanwhile wait for the new key.
    private var replacing: Task<DeviceKey, any Error>?
    /// Counts replacements, so a load that started before one never keeps the key it replaced.
    private var replacements = 0
    private var nonce: String?
    /// The server's clock minus this device's, learnt from a proof refused for its time.
    private(set) var skew: TimeInterval = 0

    init(storage: any CredentialStorage, now: @escaping @Sendable () -> Date) {
        self.storage = storage
        self.now = now
    }

    /// The device key, loaded or created once.
    /// - Throws: `LatchkeyError` (`.storage`): the storage cannot be read, or holds a key that
    ///   cannot be restored (`id` `.deviceKey`; `LatchkeyClient.resetDeviceKey()` is the way out).
    func deviceKey() async throws -> DeviceKey {
        if let replacing { return try await replacing.value }
        if let key { return key }
        let started = replacements
        if let loading {
            let loaded = try await loading.value
            // Replaced while waiting for a load that began before: the replacement's key instead.
            guard replacements == started else { return try await deviceKey() }
            return loaded
        }
        let storage = self.storage
        let task = Task { try await DeviceKey.loadOrCreate(in: storage) }
        loading = task
        defer { if loading == task { loading = nil } }
        let loaded = try await task.value
        // Replaced while this load was reading: the replacement's key, never the one it replaced.
        guard replacements == started else { return try await deviceKey() }
        key = loaded
        return loaded
    }

    /// Replaces the device key with a new one, stored over the old one (and the certificate issued
    /// for the old one deleted), and answers it. Calls made meanwhile wait for the new key, and a
    /// replacement asked for while one is in flight answers that one's key.
    /// - Throws: `LatchkeyError` `.storage` when the storage cannot be written.
    func replaceKey() async throws -> DeviceKey {
        if let replacing { return try await replacing.value }
        replacements += 1
        key = nil
        nonce = nil
        loading = nil
        let storage = self.storage
        let task = Task { try await DeviceKey.replace(in: storage) }
        replacing = task
        defer { if replacing == task { replacing = nil } }
        let new = try await task.value
        key = new
        return new
    }

    func remember(nonce: String?) {
        if let nonce, !nonce.isEmpty { self.nonce = nonce }
    }

    /// Takes the server's clock from the `Date` of a refused proof. Answers whether the skew
    /// changed enough to be worth a new proof (the proof window is a minute; `Date` has seconds).
    func adjustClock(serverDate: Date) -> Bool {
        let measured = serverDate.timeIntervalSince(now())
        guard abs(measured - skew) > 5 else { return false }
        skew = measured
        return true
    }

    /// A proof for `method url` (without query), hashing `accessToken` when one is sent; `jti` is
    /// the proof's id (sealed credentials of the request are bound to it).
    func proof(method: String, url: String, accessToken: String?, jti: String = UUID().uuidString) async throws -> String {
        let key = try await deviceKey()
        let header = #"{"alg":"ES256","jwk":{"crv":"P-256","kty":"EC","x":"\#(key.x)","y":"\#(key.y)"},"typ":"dpop+jwt"}"#
        let issuedAt = Int((now().timeIntervalSince1970 + skew).rounded())
        var claims: [String: Any] = ["jti": jti, "htm": method, "htu": url, "iat": issuedAt]
        if let accessToken { claims["ath"] = Data(SHA256.hash(data: Data(accessToken.utf8))).base64URL }
        if let nonce { claims["nonce"] = nonce }
        let input = Data(header.utf8).base64URL + "." + (try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)).base64URL
        let signature: Data
        do { signature = try key.sign(Data(input.utf8)) } catch { throw DeviceKey.unusable(error) }
        return input + "." + signature.base64URL
    }
}

struct DPoPMiddleware: ClientMiddleware {
    let signer: DPoPSigner
    /// Seals the request's credential fields, bound to each attempt's proof.
    let sealer: CredentialSealer
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
        var retriedNonce = false, retriedClock = false, retriedKey = false
        var plan = try await sealer.plan(for: operationID)
        // The body of a call with sealable fields is kept, to be sealed for each attempt's proof.
        let plainBody: Data? = if SealedField.all[operationID] != nil, let body {
            try await Data(collecting: body, upTo: 1024 * 1024)
        } else { nil }
        while true {
            // Each attempt is a new proof, and the credentials are sealed again to its `jti`.
            let jti = UUID().uuidString
            var sent = plainBody.map { HTTPBody($0) } ?? body
            if let plan, let plainBody {
                let sealed = try CredentialSealer.seal(plainBody, plan: plan, operationID: operationID,
                                                       keyThumbprint: try await signer.deviceKey().thumbprint, proofID: jti)
                sent = HTTPBody(sealed)
                if request.headerFields[.contentLength] != nil { request.headerFields[.contentLength] = String(sealed.count) }
            }
            request.headerFields[Self.proofHeader] = try await signer.proof(method: request.method.rawValue, url: base + path,
                                                                           accessToken: token, jti: jti)
            var answer = try await next(request, sent, baseURL)
            await signer.remember(nonce: answer.0.headerFields[Self.nonceHeader])
            if answer.0.status == .badRequest, plainBody != nil, !retriedKey {
                var data = Data()
                if let refused = answer.1 { data = try await Data(collecting: refused, upTo: 1024 * 1024) }
                answer.1 = HTTPBody(data)
                let id = ErrorID(rawValue: ErrorEnvelopeMiddleware.errorBody(data, status: answer.0.status).id)
                if id == .sealKeyUnknown || id == .sealRequired {
                    // The server rotated its key, or the issuer asks for more sealing, since the
                    // settings were read: read them again, once.
                    retriedKey = true
                    await sealer.forget()
                    plan = try await sealer.plan(for: operationID)
                    continue
                }
            }
            guard answer.0.status == .unauthorized, let challenge = answer.0.headerFields[.wwwAuthenticate] else { return answer }
            if challenge.contains("use_dpop_nonce"), !retriedNonce {
                retriedNonce = true
            } else if challenge.contains("invalid_dpop_proof"), !retriedClock,
                      let date = answer.0.headerFields[.date].flatMap(HTTPDate.parse), await signer.adjustClock(serverDate: date) {
                // A proof refused while this device's clock is minutes off: once more, on the server's time.
                retriedClock = true
            } else {
                return answer
            }
        }
    }
}

/// The HTTP date of a `Date` header (RFC 9110 §5.6.7, IMF-fixdate).
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
