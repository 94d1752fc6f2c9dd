import HTTPTypes
import LatchkeyDomain
import LatchkeyHTTP

/// An admin operation as the admin document (`Server/Sources/LatchkeyAdminAPI/openapi.yaml`)
/// serves it: its method and path, and the limits the document declares for what a request
/// carries. `AdminRoute.all` is generated from the document (`Scripts/generate-api`), so the
/// routes, roles and limits the server applies are the document's.
struct AdminRoute: Sendable {
    /// One value's limits, as the document writes them (a parameter's or a body field's schema).
    struct Rule: Sendable, Equatable {
        /// `minLength...maxLength`, in Unicode scalars.
        var lengths: ClosedRange<Int>?
        /// An ECMA-262 `pattern` the whole value matches.
        var pattern: String?
        /// An `enum`'s values (a boolean's are `true` and `false`).
        var choices: Set<String>?
        /// An `integer`, within `minimum...maximum` when `bounds` is given.
        var integer = false
        var bounds: ClosedRange<Int>?
        /// An `integer`'s `default`: the value the server uses when the parameter is not sent.
        var integerDefault: Int?
        /// A `date-time` (RFC 3339).
        var dateTime = false
    }

    let operation: AdminOperation
    /// The HTTP method, upper case.
    let method: String
    /// The path template, parameters as `{name}`.
    let path: String
    /// The limits of each path parameter and each query parameter, by name.
    let pathRules: [String: Rule]
    let queryRules: [String: Rule]
    /// The limits of the fields of a JSON request body the generated code does not check.
    let bodyRules: [String: Rule]
    /// The media type of a request body that is not JSON: the handler reads it as it arrives.
    let bodyType: String?
    /// Whether a success answers a JSON body.
    let answersJSON: Bool

    init(_ operation: AdminOperation, _ method: String, _ path: String, path pathRules: [String: Rule] = [:],
         query queryRules: [String: Rule] = [:], body bodyRules: [String: Rule] = [:], bodyType: String? = nil,
         answersJSON: Bool = false) {
        self.operation = operation
        self.method = method
        self.path = path
        self.pathRules = pathRules
        self.queryRules = queryRules
        self.bodyRules = bodyRules
        self.bodyType = bodyType
        self.answersJSON = answersJSON
    }

    /// The route of `operation` (every operation has one).
    static func of(_ operation: AdminOperation) -> AdminRoute { byOperation[operation]! }

    /// The route registered for `method` and the path template `path`, nil for one the document does not declare.
    static func of(method: String, path: String) -> AdminRoute? { byRoute[method + " " + path] }

    private static let byOperation = Dictionary(uniqueKeysWithValues: all.map { ($0.operation, $0) })
    private static let byRoute = Dictionary(uniqueKeysWithValues: all.map { ($0.method + " " + $0.path, $0) })
}

/// The admin API's routes, for the listener that serves them.
public enum AdminOperations {
    /// Routes whose body the handler reads as it arrives (the request body limit does not apply).
    public static let streamedPaths = Set(AdminRoute.all.filter { $0.bodyType != nil }.map(\.path))

    /// The admin routes by method, so a known path with another method is 405 with `Allow` (the
    /// methods in the order of `METHOD path`).
    public static let table: RouteTable = {
        var table = RouteTable()
        for route in AdminRoute.all.sorted(by: { ($0.method, $0.path) < ($1.method, $1.path) }) {
            table.add(HTTPRequest.Method(route.method)!, route.path)
        }
        return table
    }()

    /// The routes of the admin listener (or of the public port's admin part): the API's, and the
    /// console's when it is on.
    public static func routes(console: Bool) -> RouteTable {
        console ? table.adding(ConsoleRoutes.table) : table
    }
}
