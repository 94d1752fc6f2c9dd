import Hummingbird
import LatchkeyDomain
import LatchkeyHTTP
import NIOCore

/// The admin API's requests (`/admin/v1`): the operator key `AdminEdgeMiddleware` resolved.
public struct AdminRequestContext: ChildRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var maxUploadSize: Int { 1024 * 1024 }
    /// The key the call was authenticated with and its client; set by the edge before any handler runs.
    public var operatorCall: OperatorCall?

    public init(context: AppRequestContext) {
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
    }
}

/// The operator key and client of the admin call being handled, for the generated handlers (which
/// see no Hummingbird context): set by `AdminEdgeMiddleware`, read by `AdminHandler`.
enum AdminCaller {
    @TaskLocal static var call: OperatorCall?
}
