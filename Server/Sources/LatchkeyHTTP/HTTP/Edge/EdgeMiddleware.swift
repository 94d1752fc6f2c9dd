import Hummingbird
import LatchkeyContract
import LatchkeyCore
import LatchkeyDomain

/// The edge of an API operation: resolves a request, once, into the `Caller` its handler and the
/// services see, through single-purpose steps in this order:
///
/// 1. the headers the steps read, in one pass (`EdgeHeaders`), and from them the app context
///    headers (`ClientContext(headers:…)`); the client address (`TrustedProxies.clientAddress`,
///    which reads `X-Forwarded-For` itself);
/// 2. admission of the operation's hashes (`HashGate`), before anything is counted, verified or written;
/// 3. the limit per client address (`AddressRateLimit`);
/// 4. the DPoP proof, verified and accepted once (`ProofCheck`, `ProofReplay`);
/// 5. the session the token names, held to its key (`SessionCheck`);
/// 6. the device the request acts for (`DeviceResolution`);
/// 7. a recent knowledge factor for a privileged operation (`PrivilegeCheck`);
/// 8. the sealed credentials opened (`CredentialOpening`);
/// 9. after the handler, the key's current nonce on the answer (`DPoPChallenge`).
///
/// One is registered with each operation (`APIRouteGroups`), its steps made for that operation's
/// `OperationPolicy` (from `x-latchkey-policy`), so its rules are those of the operation the
/// request was routed to, however its path was spelled. The steps are called in turn rather than
/// stacked as middlewares: a request crosses one middleware however many steps there are.
package struct EdgeMiddleware<Context: APIRequestContext>: RouterMiddleware {
    package let proxies: TrustedProxies
    package let hashGate: HashGate
    /// The hashes the operation runs for any request that reaches its work (`hashes` in the policy).
    package let hashes: Int
    package let rateLimit: AddressRateLimit
    package let proofs: ProofCheck
    package let session: SessionCheck
    package let device: DeviceResolution
    /// For a privileged operation only.
    package let privilege: PrivilegeCheck?
    /// For an operation with sealable fields only.
    package let opening: CredentialOpening?
    package let challenge: DPoPChallenge
    /// The contract's `operationId`, which names the request's span.
    package let operationID: String

    /// The edge of `policy`'s operation.
    package init(policy: OperationPolicy, services: EdgeServices) {
        operationID = policy.operationID
        proxies = services.proxies
        hashGate = services.hashGate
        hashes = policy.hashes
        rateLimit = AddressRateLimit(throttle: services.throttle)
        proofs = ProofCheck(verifier: services.dpop, replay: services.replay, policy: policy)
        session = SessionCheck(sessions: services.sessions, deviceBinding: services.deviceBinding, policy: policy)
        device = DeviceResolution(deviceBinding: services.deviceBinding, policy: policy)
        privilege = policy.privileged ? services.privilege : nil
        opening = CredentialOpening(unsealer: services.unsealer, replay: services.replay, policy: policy, maxBodyBytes: services.maxBodyBytes)
        challenge = DPoPChallenge(verifier: services.dpop, catalog: services.catalog)
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        RequestSpan.name(operationID)
        var context = context
        var caller = context.caller
        let headers = EdgeHeaders(request.headers)
        caller.client = try ClientContext(headers: headers, requiresAppSignature: Context.requiresAppSignature,
                                          clientIP: proxies.clientAddress(of: request, peer: context.remoteAddress))
        caller.requestID = Request.requestID(sent: headers.requestID, context)
        // Under a storm a refusal here costs neither a count, nor the signature check, nor a
        // database write (a proof refused unrecorded can only be sent again into another admission).
        caller.admission = try hashGate.reserve(hashes, connection: caller.connection)
        defer { hashGate.end(caller.admission) }
        if let wait = try await rateLimit.refusal(caller.client.clientIP) {
            var refusal = Context.rateLimited
            refusal.retryAfter = wait
            throw refusal
        }
        let credential = SessionCredential(headers, headers: request.headers, dialect: Context.dialect)
        let proof: DPoPProof?
        do {
            proof = try await proofs.proof(headers.proofs, of: request, credential: credential)
            caller.identity = try await session.identity(of: credential, proof: proof)
            try device.resolve(&caller.client, proof: proof)
        } catch let error as DomainError where error.kind.isDeviceBinding {
            return challenge.refusal(error, dialect: Context.dialect, to: request)
        } catch let refusal as DPoPNonceRequired {
            return challenge.refusal(DomainError(.useDPoPNonce), nonceFor: refusal.thumbprint, dialect: Context.dialect, to: request)
        }
        try privilege?.check(caller.identity)
        // The request's audit events name the device the edge resolved.
        caller.audit.identify(device: caller.client.deviceID, clientIP: caller.client.clientIP)
        let request = try await opening?.open(request, proof: proof) ?? request
        context.caller = caller
        var response = try await RequestCaller.$current.withValue(caller) { try await next(request, context) }
        if let proof { response.headers[.dpopNonce] = challenge.nonce(for: proof.thumbprint) }
        return response
    }
}

/// What the edges of all operations share, each edge taking the steps its operation needs.
package struct EdgeServices: Sendable {
    package let throttle: Throttle
    /// Asked for the operation's hashes before anything else is verified or written.
    package let hashGate: HashGate
    package let proxies: TrustedProxies
    /// The token lookup, one reference (it runs on every request).
    package let sessions: SessionLookup
    package let privilege: PrivilegeCheck
    package let dpop: DPoPVerifier
    package let replay: ProofReplay
    package let deviceBinding: DeviceBindingMode
    /// Opens sealed credentials (`x-latchkey-sealed`).
    package let unsealer: CredentialUnsealer
    package let maxBodyBytes: Int
    /// The languages of the refusals the edge answers itself.
    package let catalog: TextCatalog?

    package init(throttle: Throttle, hashGate: HashGate, proxies: TrustedProxies, authentication: AuthenticationService,
                 dpop: DPoPVerifier, replay: ProofReplay, deviceBinding: DeviceBindingMode, unsealer: CredentialUnsealer,
                 maxBodyBytes: Int, catalog: TextCatalog? = nil) {
        self.catalog = catalog
        self.throttle = throttle
        self.hashGate = hashGate
        self.proxies = proxies
        self.sessions = authentication.sessionLookup
        self.privilege = PrivilegeCheck(seconds: authentication.issuer.sessions.privilegedSeconds, now: authentication.now)
        self.dpop = dpop
        self.replay = replay
        self.deviceBinding = deviceBinding
        self.unsealer = unsealer
        self.maxBodyBytes = maxBodyBytes
    }
}
