import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyContract
import LatchkeyDomain
import LatchkeyServerAPI
import OpenAPIHummingbird
import OpenAPIRuntime
import Synchronization

/// The two API route groups as one transport for the generated `registerHandlers`: each operation
/// of the contract is registered, once at start-up, on the group its path belongs to — the
/// Kratos-compatible group for `/a/…` and `/identity/…`, the wallet group for the rest — behind an
/// `EdgeMiddleware` of its own that carries the operation's `OperationPolicy`. Each group has its
/// own context type, middlewares and error rendering.
package struct APIRouteGroups: ServerTransport {
    package let wallet: RouterGroup<WalletRequestContext>
    package let kratos: RouterGroup<KratosRequestContext>
    /// What each operation's `EdgeMiddleware` is made from.
    package let edge: EdgeServices
    /// Operations answered by a function of the caller that writes the JSON itself, by operation
    /// id (`APIHandler.answeredDirectly`, JSON of a flat object); a request that does not accept JSON still goes to the
    /// generated handler, which refuses it.
    package var answeredDirectly: [String: @Sendable () throws -> [UInt8]] = [:]

    /// An operation of the generated code that the document declares no policy for.
    package struct UndeclaredOperation: Error, CustomStringConvertible {
        package let route: String
        package var description: String { "\(route) has no x-latchkey-policy in openapi.yaml" }
    }

    /// The reads whose answer is the issuer's configuration, the same for every request until the
    /// server restarts: their JSON is encoded once, not per request (it was most of their cost).
    /// The edge still runs for each request (app signature, rate limit, proof). Not the encryption
    /// settings: their previous keys retire while the server runs.
    package static let answeredOnce: Set<String> = [
        "retrieveMfaQuestionsWithMetadata", "retrievePasswordConfigurations", "retrievePasscodeConfigurations",
        "retrieveProfileMetadata",
    ]

    /// The Kratos-compatible operations of the contract.
    package static func isKratos(_ path: String) -> Bool { path.hasPrefix("/a/") || path.hasPrefix("/identity/") }

    /// Registers one operation behind its own edge. Throws `UndeclaredOperation` (the server does
    /// not start) for an operation without a policy.
    package func register(_ handler: @escaping Handler, method: HTTPRequest.Method, path: String) throws {
        guard let policy = OperationPolicy.of(method: method.rawValue, path: path) else {
            throw UndeclaredOperation(route: "\(method.rawValue) \(path)")
        }
        let handler = Self.answeredOnce.contains(policy.operationID) ? StoredAnswer(handler).handler : handler
        let direct = answeredDirectly[policy.operationID]
        if Self.isKratos(path) {
            Self.add(handler, direct: direct, on: kratos, behind: EdgeMiddleware(policy: policy, services: edge), method: method, path: path)
        } else {
            Self.add(handler, direct: direct, on: wallet, behind: EdgeMiddleware(policy: policy, services: edge), method: method, path: path)
        }
    }

    /// The operation on a group of its own behind its edge; an operation answered directly takes
    /// the `DirectAnswer` next, before the OpenAPI runtime's conversions.
    private static func add<Context>(_ handler: @escaping Handler, direct: (@Sendable () throws -> [UInt8])?, on group: RouterGroup<Context>,
                                     behind edge: EdgeMiddleware<Context>, method: HTTPRequest.Method, path: String) {
        let routes = group.group().add(middleware: edge)
        if let direct { routes.add(middleware: DirectAnswer<Context>(answer: direct)) }
        routes.register(handler, method: method, path: path)
    }
}

extension APIRouteGroups {
    package typealias Handler = @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)

    /// Whether an `Accept` header admits `application/json` (none admits anything), read as the
    /// runtime reads it: each media range parsed by `AcceptHeaderContentType` (a range or quality
    /// it cannot parse makes the generated handler answer 400, so such a header is left to it),
    /// then the type without parameters compared ignoring case.
    package static func acceptsJSON(_ accept: String?) -> Bool {
        guard let accept else { return true }
        var json = false
        for component in accept.split(separator: ",") {
            let range = component.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let parsed = AcceptHeaderContentType<MediaRange>(rawValue: range) else { return false }
            let type = parsed.contentType.rawValue
            if type == "application/json" || type == "application/*" || type == "*/*" { json = true }
        }
        return json
    }

    /// Any media range, for `AcceptHeaderContentType`'s parser.
    private struct MediaRange: AcceptableProtocol {
        let rawValue: String
        init?(rawValue: String) { self.rawValue = rawValue }
        static var allCases: [MediaRange] { [] }
    }
}

/// The answer of an operation the handler writes itself (`APIRouteGroups.answeredDirectly`), for
/// a request that accepts JSON, with the content type the generated handler sends; it answers
/// behind the operation's edge and before the OpenAPI runtime converts the request and the
/// answer. Any other request goes on to the generated handler, which refuses it.
package struct DirectAnswer<Context: RequestContext>: RouterMiddleware {
    let answer: @Sendable () throws -> [UInt8]

    package init(answer: @escaping @Sendable () throws -> [UInt8]) { self.answer = answer }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard APIRouteGroups.acceptsJSON(request.headers[.accept]) else { return try await next(request, context) }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: try answer())))
    }
}

/// An operation's first successful answer, kept and sent again (`APIRouteGroups.answeredOnce`);
/// a request that does not accept JSON goes to the generated handler, which refuses it.
private final class StoredAnswer: Sendable {
    typealias Handler = APIRouteGroups.Handler
    private let generated: Handler
    private let stored = Mutex<(response: HTTPResponse, body: ArraySlice<UInt8>)?>(nil)

    init(_ generated: @escaping Handler) { self.generated = generated }

    var handler: Handler {
        { [self] request, body, metadata in
            let acceptsJSON = APIRouteGroups.acceptsJSON(request.headerFields[.accept])
            if acceptsJSON, let answer = stored.withLock({ $0 }) { return (answer.response, HTTPBody(answer.body)) }
            let (response, answerBody) = try await generated(request, body, metadata)
            guard acceptsJSON, response.status == .ok, let answerBody else { return (response, answerBody) }
            let bytes = try await ArraySlice<UInt8>(collecting: answerBody, upTo: 1 << 20)
            stored.withLock { $0 = (response, bytes) }
            return (response, HTTPBody(bytes))
        }
    }
}
