import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI
import Logging
import NIOCore

/// Gives each request an id (`X-Request-ID`, kept from the client when sane), logs one line per
/// request with method, path (never the query string), status and duration, and no secrets.
package struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}
    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The id goes with each line logged (here and by `ErrorMiddleware`), not into the logger's
        // metadata: setting that re-renders the handler's metadata on every request, logged or not.
        let id = request.requestID(context)
        let start = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.requestID] = id
        let elapsed = ContinuousClock.now - start
        context.logger.info("\(request.method) \(request.uri.path) \(response.status.code)",
                            metadata: ["request_id": "\(id)",
                                       "duration_ms": "\(elapsed.components.attoseconds / 1_000_000_000_000_000 + elapsed.components.seconds * 1000)"])
        return response
    }
}

/// Refuses bodies over the limit with 413 before anything reads them, and JSON text that escapes
/// a NUL character with 400 naming the field (`NulCharacterGuard`).
package struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    package let maxBytes: Int
    /// Paths whose handler reads the body as it arrives, with a limit of its own (the admin API's import).
    package let streamedPaths: Set<String>
    package init(maxBytes: Int, streamedPaths: Set<String> = []) {
        self.maxBytes = maxBytes
        self.streamedPaths = streamedPaths
    }
    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if !streamedPaths.isEmpty, request.method == .post, streamedPaths.contains(request.uri.path) { return try await next(request, context) }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBytes {
            throw HTTPError(.contentTooLarge)
        }
        var request = request
        if request.method != .get, request.method != .head {
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: maxBytes)
            } catch is NIOTooManyBytesError {
                // A chunked body has no Content-Length to refuse early: reading past the limit is 413 too.
                throw HTTPError(.contentTooLarge)
            }
            if request.headers[.contentType]?.lowercased().contains("json") == true { try NulCharacterGuard.check(body) }
        }
        return try await next(request, context)
    }
}

/// The edge of an API operation, once per request: limits requests per client IP, requires the
/// app context headers where the group does, verifies the DPoP proof and resolves the session token
/// under the operation's `OperationPolicy` (from `x-latchkey-policy`) into the request's `Caller` (with its device key, address, request id, policy and connection),
/// puts it in the typed context and hands it to the handlers (`RequestCaller`). One is
/// registered with each operation (`APIRouteGroups`), so its rules are those of the operation the
/// request was routed to, however its path was spelled.
package struct EdgeMiddleware<Context: APIRequestContext>: RouterMiddleware {
    package let throttle: Throttle
    package let hashGate: HashGate
    package let proxies: TrustedProxies
    package let authentication: AuthenticationService
    /// The token lookup of `authentication`, kept as one reference (it runs on every request).
    package let sessions: SessionLookup
    package let dpop: DPoPVerifier
    package let deviceBinding: DeviceBindingMode
    /// Where credential calls' proofs are recorded across replicas.
    package let proofs: any ProofStore
    /// The rules of the operation this edge guards.
    package let policy: OperationPolicy
    /// For an operation with sealable fields: opens them before the handler reads the body.
    package let unsealer: CredentialUnsealer?
    package let maxBodyBytes: Int

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var caller = context.caller
        let headers = request.headers
        caller.client = ClientContext(applicationSignature: headers[.applicationSignature], deviceID: headers[.deviceID],
                                      deviceLabel: headers[.deviceID], deviceType: headers[.deviceType], appVersion: headers[.appVersion],
                                      sdkVersion: headers[.sdkVersion],
                                      clientIP: request.clientIP(peer: context.remoteAddress, proxies: proxies))
        caller.requestID = request.requestID(context)
        caller.policy = policy
        if Context.requiresAppSignature {
            guard let signature = caller.client.applicationSignature, AppContextHeader.isUUID(signature) else {
                // The app signature is the API key of the wallet API (the contract's `applicationSignature`
                // security scheme): without a valid one the caller is unauthenticated.
                throw DomainError(.invalidAppSignature, field: "X-Application-Signature")
            }
            if let device = caller.client.deviceID, !AppContextHeader.isValidDeviceLabel(device) {
                throw DomainError.invalidField("X-Device-ID", "X-Device-ID must have 1 to 128 characters, none a control character.")
            }
        }
        // Kept with the device and shown in device lists and consoles: short and printable.
        for name in [HTTPField.Name.deviceType, .appVersion, .sdkVersion] {
            if let value = headers[name], !AppContextHeader.isValid(value) {
                throw DomainError.invalidField(name.rawName, "\(name.rawName) must have 1 to 64 printable ASCII characters.")
            }
        }
        if caller.client.deviceID?.hasPrefix(DeviceKeyID.prefix) == true {
            // Only a proof names a device by its key; a header that looks like one would impersonate it.
            throw DomainError.invalidField("X-Device-ID", "X-Device-ID must not start with \"\(DeviceKeyID.prefix)\".")
        }
        // The operation's hashes are admitted before the rate limit counts the request and before
        // its proof is verified or recorded: under a storm a refusal costs neither a count, nor the
        // signature check, nor a database write (a proof refused unrecorded can only be sent again
        // into another admission).
        caller.admission = try hashGate.reserve(policy.hashes, connection: caller.connection)
        defer { hashGate.end(caller.admission) }
        if let wait = try await throttle.refusal("ip:" + caller.client.clientIP, limit: throttle.settings.requestsPerMinutePerIP) {
            var refusal = Context.rateLimited
            refusal.retryAfter = wait
            throw refusal
        }
        let credential = SessionCredential(request, dialect: Context.dialect)
        var proof: DPoPProof?
        do {
            proof = try await verifyProof(request, credential: credential)
            caller.identity = try bind(try await sessions.identity(token: credential?.token), credential, proof)
        } catch let error as DomainError where error.kind.isDeviceBinding {
            return dpopRefusal(error)
        } catch let refusal as DPoPNonceRequired {
            return dpopRefusal(DomainError(.useDPoPNonce), nonceFor: refusal.thumbprint)
        }
        caller.client.keyThumbprint = proof?.thumbprint
        if let proof {
            caller.client.deviceID = DeviceKeyID.prefix + proof.thumbprint
        } else if deviceBinding == .required {
            caller.client.deviceID = nil
            if policy.proof == .required { return dpopRefusal(DPoPVerifier.invalid("This call needs a DPoP proof by the device key.")) }
        }
        if policy.privileged, case .authenticated(let principal) = caller.identity {
            try principal.requirePrivileged(within: authentication.issuer.sessions.privilegedSeconds, now: authentication.now())
        }
        // The request's audit events name the device the edge resolved.
        caller.audit.identify(device: caller.client.deviceID, clientIP: caller.client.clientIP)
        // Sealed credentials are opened here, once the proof they are bound to is verified and
        // before any handler or service sees the body.
        var request = request
        if let unsealer {
            let unsealed = try await unsealer.open(request, operationID: policy.operationID, proof: proof, maxBytes: maxBodyBytes)
            request = unsealed.request
            // A seal opens once: its proof is recorded across replicas even where the operation's
            // policy would not record it.
            if unsealed.opened, !policy.recordProof, let proof { try await record(proof) }
        }
        context.caller = caller
        var response = try await RequestCaller.$current.withValue(caller) { try await next(request, context) }
        // A client that proves its key learns its current nonce with every answer (RFC 9449 §8.2).
        if let proof { response.headers[.dpopNonce] = dpop.nonces.current(for: proof.thumbprint, at: dpop.now()) }
        return response
    }
}

extension Request {
    /// The request's id: the client's `X-Request-ID` when sane, else the context's.
    package func requestID(_ context: some RequestContext) -> String {
        headers[.requestID].flatMap { $0.count <= 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } ? $0 : nil }
            ?? context.id
    }

    /// The client's IP address: the peer, or from a trusted proxy the rightmost `X-Forwarded-For`
    /// entry that is not a trusted proxy (`TrustedProxies`).
    package func clientIP(peer: SocketAddress?, proxies: TrustedProxies) -> String {
        proxies.client(peer: peer?.ipAddress ?? "unknown", forwardedFor: headers[values: .xForwardedFor])
    }
}

/// The portal's pages are limited per client IP too, answering a page rather than JSON.
package struct PortalLimitMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    package let throttle: Throttle
    package let proxies: TrustedProxies
    package let issuerName: String

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let ip = request.clientIP(peer: context.remoteAddress, proxies: proxies)
        if let wait = try await throttle.refusal("ip:" + ip, limit: throttle.settings.requestsPerMinutePerIP) {
            var page = WebPage.message(.tooManyRequests, title: "Too many requests",
                                       text: "Wait a minute, then try again.", issuerName: issuerName).response()
            page.headers[.retryAfter] = String(wait)
            return page
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    package static let requestID = Self("X-Request-ID")!
    package static let applicationSignature = Self("X-Application-Signature")!
    package static let deviceID = Self("X-Device-ID")!
    package static let deviceType = Self("X-Device-Type")!
    package static let appVersion = Self("X-App-Version")!
    package static let sdkVersion = Self("X-SDK-Version")!
    package static let xForwardedFor = Self("X-Forwarded-For")!
    package static let sessionToken = Self("X-Session-Token")!
    package static let dpop = Self("DPoP")!
    package static let dpopNonce = Self("DPoP-Nonce")!
}
