import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Tracing

/// An identity the provider vouched for: the ID token's subject and its verified claims.
public struct VerifiedIdentity: Sendable, Equatable {
    public var subject: String
    /// The claims as the provider sent them (ID token, completed by userinfo), as JSON text.
    public var claimsJSON: String
    public var email: String?
    public var emailVerified: Bool
    public var claims: [String: String]

    /// The provider's claims, decoded once (ID token, or ID token completed by userinfo).
    package let decoded: OIDCClaims

    /// The identity of `subject` with these claims.
    package init(subject: String, claims: OIDCClaims) {
        self.subject = subject
        decoded = claims
        claimsJSON = claims.json
        email = claims.email
        emailVerified = claims.emailVerified
        self.claims = claims.all.compactMapValues(\.text)
    }
}

/// One OpenID Connect provider: discovery (cached), JWKS (cached, refreshed on an unknown `kid`),
/// the authorization-code exchange with client_secret_basic, ID token verification (signature,
/// issuer, audience, expiry) and userinfo when the ID token lacks the email. Every call to the
/// provider has a timeout.
public actor OIDCProvider {
    package struct Metadata: Decodable {
        package var issuer: String
        package var token_endpoint: String
        package var jwks_uri: String
        package var userinfo_endpoint: String?
    }

    public let settings: IdentityProviderSettings
    private let http: HTTPClient
    private let now: @Sendable () -> Date
    private var metadata: Metadata?
    private var keys = JWTKeyCollection()
    private var kids: Set<String> = []
    private var keysFetchedAt: Date?
    package static let leeway: TimeInterval = 30
    /// The JWKS is fetched again this long after the last fetch, so a rotation is seen even when the
    /// provider keeps its `kid`s.
    package static let keysMaxAge: TimeInterval = 3600
    private let logger = Logger(label: "latchkey.federation")

    public init(settings: IdentityProviderSettings, http: HTTPClient = .shared, now: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.http = http
        self.now = now
    }

    private var timeout: TimeAmount { .seconds(Int64(settings.timeoutSeconds ?? 5)) }

    /// Exchanges an authorization code and answers the verified identity.
    public func identity(forCode code: String, codeVerifier: String? = nil) async throws -> VerifiedIdentity {
        let metadata = try await discovery()
        var request = HTTPClientRequest(url: metadata.token_endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        let credentials = "\(PercentEncoding.unreserved(settings.clientId)):\(PercentEncoding.unreserved(settings.clientSecret ?? ""))"
        request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        let form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", settings.redirectUri)]
            + (codeVerifier.map { [("code_verifier", $0)] } ?? [])
        request.body = .bytes(ByteBuffer(string: form.map { "\($0)=\(PercentEncoding.unreserved($1))" }.joined(separator: "&")))
        let (status, body) = try await send(request, span: "oidc.token")
        if (400..<500).contains(status) { throw FederationError.codeRefused }
        guard status == 200, let token = try? JSONDecoder().decode(TokenResponse.self, from: body),
              let idToken = token.id_token else {
            throw FederationError.unavailable("The token endpoint answered HTTP \(status) without an ID token.")
        }
        var identity = try await verify(idToken: idToken, metadata: metadata)
        if identity.email == nil, let userinfo = metadata.userinfo_endpoint, let access = token.access_token {
            identity = try await complete(identity, userinfo: userinfo, accessToken: access)
        }
        return identity
    }

    /// Verifies an ID token as this provider's, for this client, unexpired.
    package func verify(idToken: String, metadata: Metadata) async throws -> VerifiedIdentity {
        if let kid = Self.keyID(of: idToken), !kids.contains(kid) { try await refreshKeys(metadata, force: keysFetchedAt != nil) }
        if keysFetchedAt == nil { try await refreshKeys(metadata, force: true) }
        if let fetched = keysFetchedAt, now().timeIntervalSince(fetched) > Self.keysMaxAge { try await refreshKeys(metadata, force: true) }
        let claims: IDTokenPayload
        do {
            claims = try await keys.verify(idToken, as: IDTokenPayload.self)
        } catch {
            // A provider may rotate a key under the same `kid`: fetch the keys once more (rate-limited) and retry.
            let before = keysFetchedAt
            try await refreshKeys(metadata, force: true)
            guard keysFetchedAt != before, let retried = try? await keys.verify(idToken, as: IDTokenPayload.self) else {
                throw FederationError.invalidIDToken("Access denied; the signature does not verify with the provider's keys.")
            }
            claims = retried
        }
        guard Self.sameIssuer(claims.iss.value, metadata.issuer), Self.sameIssuer(claims.iss.value, settings.issuer) else {
            throw FederationError.invalidIDToken("Access denied; the token's issuer is not the provider.")
        }
        guard claims.aud.value.contains(settings.clientId) else {
            throw FederationError.invalidIDToken("Access denied; the token was issued for another client.")
        }
        guard claims.exp.value.addingTimeInterval(Self.leeway) > now() else {
            throw FederationError.invalidIDToken("Access denied; the token has expired.")
        }
        try checkTimesAndParty(claims.claims)
        return VerifiedIdentity(subject: claims.sub.value, claims: claims.claims)
    }

    /// `nbf` and `iat` not in the future (with the leeway), and `azp`, when present, this client
    /// (OpenID Connect Core §3.1.3.7).
    package func checkTimesAndParty(_ claims: OIDCClaims) throws {
        let latest = now().addingTimeInterval(Self.leeway).timeIntervalSince1970
        if let nbf = claims.notBefore, nbf > latest {
            throw FederationError.invalidIDToken("Access denied; the token is not valid yet.")
        }
        if let iat = claims.issuedAt, iat > latest {
            throw FederationError.invalidIDToken("Access denied; the token was issued in the future.")
        }
        if let azp = claims.authorizedParty, azp != .string(settings.clientId) {
            throw FederationError.invalidIDToken("Access denied; the token was issued to another party.")
        }
    }

    private func complete(_ identity: VerifiedIdentity, userinfo: String, accessToken: String) async throws -> VerifiedIdentity {
        var request = HTTPClientRequest(url: userinfo)
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        let (status, body) = try await send(request, span: "oidc.userinfo")
        guard status == 200, let info = try? JSONDecoder().decode(OIDCClaims.self, from: body),
              info.subject == identity.subject else { return identity }
        return VerifiedIdentity(subject: identity.subject, claims: identity.decoded.completed(by: info))
    }

    private func discovery() async throws -> Metadata {
        if let metadata { return metadata }
        let base = settings.issuer.hasSuffix("/") ? String(settings.issuer.dropLast()) : settings.issuer
        let (status, body) = try await send(HTTPClientRequest(url: base + "/.well-known/openid-configuration"), span: "oidc.discovery")
        guard status == 200, let loaded = try? JSONDecoder().decode(Metadata.self, from: body) else {
            throw FederationError.unavailable("Discovery answered HTTP \(status).")
        }
        metadata = loaded
        return loaded
    }

    /// Loads the JWKS; a forced reload happens at most every 10 seconds (an unknown `kid` cannot
    /// make the server hammer the provider).
    private func refreshKeys(_ metadata: Metadata, force: Bool) async throws {
        if let fetched = keysFetchedAt, now().timeIntervalSince(fetched) < 10 { return }
        if !force, keysFetchedAt != nil { return }
        let (status, body) = try await send(HTTPClientRequest(url: metadata.jwks_uri), span: "oidc.jwks")
        guard status == 200, let text = String(data: body, encoding: .utf8) else {
            throw FederationError.unavailable("The JWKS answered HTTP \(status).")
        }
        let fresh = JWTKeyCollection()
        do { try await fresh.add(jwksJSON: text) } catch { throw FederationError.unavailable("The JWKS cannot be read.") }
        keys = fresh
        kids = Set(((try? JSONDecoder().decode(KeySetIDs.self, from: body))?.keys ?? []).compactMap(\.kid))
        keysFetchedAt = now()
    }

    /// One call to the provider, a client span named `span` whose context goes with the request
    /// (W3C `traceparent`) when tracing is on.
    private func send(_ request: HTTPClientRequest, span name: String) async throws -> (Int, Data) {
        try await Telemetry.span(name, kind: .client) { span in
            span?.attributes["latchkey.provider"] = settings.id
            var request = request
            Telemetry.inject(into: &request)
            let (status, body) = try await send(request)
            span?.attributes["http.response.status_code"] = status
            return (status, body)
        }
    }

    private func send(_ request: HTTPClientRequest) async throws -> (Int, Data) {
        do {
            let response = try await http.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), Data(buffer: body))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout
                    || error == .connectTimeout || error == .getConnectionFromPoolTimeout {
            throw FederationError.timeout
        } catch let error as FederationError {
            throw error
        } catch {
            // What went wrong is for the operator's log, not for the app.
            logger.warning("Identity provider unreachable", metadata: ["provider": "\(settings.id)", "error": "\(error)"])
            throw FederationError.unavailable("The provider cannot be reached.")
        }
    }
}
