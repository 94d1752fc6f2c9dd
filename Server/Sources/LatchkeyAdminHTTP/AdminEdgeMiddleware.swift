import Hummingbird
import HTTPTypes
import HummingbirdAuth
import LatchkeyCore
import LatchkeyDomain
import LatchkeyHTTP

/// The admin API's edge, one per operation: limits calls per client address (after the trusted
/// proxies) before anything is read, authenticates the operator key (`Authorization: Bearer
/// lkop_…`, read by hummingbird-auth; 401 with a `Bearer` challenge otherwise), limits calls
/// per key, then requires the operation's role (403, recorded as a failed `operator.command`
/// naming the key).
struct AdminEdgeMiddleware: RouterMiddleware {
    typealias Context = AdminRequestContext
    let keys: OperatorKeys
    /// Records a refused call (`OperatorTrail.refused`).
    let trail: OperatorTrail
    let throttle: Throttle
    let proxies: TrustedProxies
    let settings: AdminSettings
    let perAddress: Int
    /// The operation and the least role it needs (`x-latchkey-role`).
    let operation: AdminOperation

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        RequestSpan.name(operation.id)
        let address = proxies.clientAddress(of: request, peer: context.remoteAddress)
        if let wait = try await throttle.refusal("admin-ip:" + address, limit: perAddress) {
            throw DomainError(.rateLimited, retryAfter: wait)
        }
        guard let presented = request.headers.bearer?.token, !presented.isEmpty, let key = try await keys.authenticate(presented) else {
            return ErrorDialect.wallet.response(DomainError(.operatorKeyInvalid, field: "Authorization"),
                                                headers: [.wwwAuthenticate: #"Bearer realm="latchkey-admin""#])
        }
        if let wait = try await throttle.refusal("admin-key:" + key.id, limit: settings.requestsPerMinutePerKey) {
            throw DomainError(.rateLimited, retryAfter: wait)
        }
        let call = OperatorCall(key: key, clientIP: address)
        guard key.role.includes(operation.role) else {
            // The user a call on `/users/{userId}/…` is about, so the refusal is among its events.
            try await trail.refused(operation, userID: context.parameters.get("userId"), for: call)
            throw DomainError(.operatorRoleInsufficient,
                              message: "The key's role \(key.role.rawValue) does not allow this call; it needs \(operation.role.rawValue).")
        }
        var context = context
        context.operatorCall = call
        return try await AdminCaller.$call.withValue(call) { try await next(request, context) }
    }
}
